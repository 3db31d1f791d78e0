package dev.distlock.sample;

import java.net.InetAddress;
import java.net.UnknownHostException;

import dev.distlock.embedded.LoopbackPorts;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Starts an embedded server the sample needs (Redis, ZooKeeper) when the environment is ready, before any bean
 * exists, and stops it with the application. Subclasses decide whether to start one and how; this class ties it to
 * the application's life: started on {@link ApplicationEnvironmentPreparedEvent} (after the config data has been
 * loaded), stopped as the very last step of the application context's close, or when its start fails. Registered in
 * {@code META-INF/spring.factories}.
 * <p>
 * Last, because distlock releases its locks while the context closes (in a lifecycle phase, then when its beans are
 * destroyed): a server stopped on {@code ContextClosedEvent}, which comes first, would leave those releases
 * unconfirmed (the locks then stay taken for the other instances until their leases expire) and the clients
 * reconnecting in a loop. So the server is registered, before the context refreshes, as the context's first
 * disposable bean: disposable beans are destroyed in the reverse order of registration, after every lifecycle has
 * stopped.
 *
 * @param <S> the server
 */
public abstract class EmbeddedServerLauncher<S> implements SmartApplicationListener, Ordered {

    private volatile S server;

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
                || ApplicationPreparedEvent.class.isAssignableFrom(eventType)
                || ApplicationFailedEvent.class.isAssignableFrom(eventType);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
            server = startIfNeeded(prepared.getEnvironment());
        }
        else if (event instanceof ApplicationPreparedEvent prepared && server != null
                && prepared.getApplicationContext().getBeanFactory() instanceof DefaultListableBeanFactory beans) {
            beans.registerDisposableBean(getClass().getName() + ".server", this::stopServer);
            // Also a bean of its own type, for the page's demos that act on the server this instance owns (the
            // fail-closed demo freezes it). A singleton registered this way is not destroyed by the context: the
            // disposable bean above stops it, last.
            beans.registerSingleton(getClass().getName() + ".process", server);
        }
        else if (event instanceof ApplicationFailedEvent) {
            stopServer(); // also when the start failed before there was a context to close
        }
    }

    private void stopServer() {
        S running = server;
        if (running != null) {
            server = null;
            stop(running);
        }
    }

    /** After the config data (application.properties, profiles) has been loaded into the environment. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /**
     * @param env the application's environment, with its config data loaded
     * @return the server it started, or null when it started none (another one is used)
     */
    protected abstract S startIfNeeded(ConfigurableEnvironment env);

    /** @param server the server {@link #startIfNeeded} started */
    protected abstract void stop(S server);

    /**
     * @param env the application's environment
     * @return the lock store the sample runs on: {@code distlock.store}, {@code redis} by default
     */
    protected static String lockStore(ConfigurableEnvironment env) {
        return env.getProperty("distlock.store", "redis").strip().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * @param port a local port
     * @return whether something accepts connections on it
     */
    protected static boolean isListening(int port) {
        return LoopbackPorts.isListening(port);
    }

    /**
     * @param host a host name or address
     * @return whether it is this machine's loopback
     */
    protected static boolean isLoopback(String host) {
        try {
            return "localhost".equalsIgnoreCase(host) || InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (UnknownHostException ex) {
            return false;
        }
    }
}
