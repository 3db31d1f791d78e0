package dev.distlock.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/** JDK proxies of JDBC interfaces for tests that record or alter what the store asks of its connections. */
final class Proxies {

    private Proxies() {
    }

    /**
     * @param type the interface
     * @param handler its calls; an exception the target threw reaches the caller as itself, not wrapped
     * @param <T> the interface type
     * @return the proxy
     */
    @SuppressWarnings("unchecked")
    static <T> T of(Class<T> type, InvocationHandler handler) {
        InvocationHandler unwrapping = (proxy, method, args) -> {
            try {
                return handler.invoke(proxy, method, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(Proxies.class.getClassLoader(), new Class<?>[] { type }, unwrapping);
    }
}
