package dev.distlock.annotation;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The {@code #root} object of a {@link DistributedLock#key()} expression.
 *
 * @param method the invoked method (of the bean class, not of the proxy or interface)
 * @param args the arguments
 * @param target the bean instance
 * @param targetClass the bean class
 */
public record LockExpressionRootObject(Method method, Object[] args, @Nullable Object target, Class<?> targetClass) {

    /** @return the method name */
    public String methodName() {
        return method.getName();
    }
}
