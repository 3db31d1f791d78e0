package dev.distlock.autoconfigure;

import java.util.List;

/**
 * A lock store that a store module offers to the auto-configuration. The module lists its implementation in its
 * {@code META-INF/spring.factories} under this interface's name, next to its own auto-configuration (marked
 * {@link ConditionalOnLockStore @ConditionalOnLockStore} with the same {@link #id()}). The lock store an
 * application uses is the registered one that {@code distlock.store} names, or else the only registered one whose
 * client library is on the class path: nothing in this module lists the stores.
 * <p>
 * Implementations are instantiated by {@link org.springframework.core.io.support.SpringFactoriesLoader} (a public
 * no-argument constructor) and must not load the store's or its client library's classes:
 * {@link #requiredClassNames()} names them so that their absence is found without errors.
 */
public interface LockStoreRegistration {

    /**
     * @return the value of {@code distlock.store} that selects this store, in lower case, for example
     *         {@code redis}
     */
    String id();

    /**
     * @return the classes, by fully qualified name, of the store and of the client library it works with; the
     *         store counts as present only when all of them are on the class path
     */
    List<String> requiredClassNames();

    /**
     * @return the dependency an application adds to use this store, named in start-up errors, for example
     *         {@code dev.distlock:distlock-spring-boot-starter}
     */
    String starter();

    /**
     * @return what the store needs as a bean or a setting to be configured, named in the start-up error when it
     *         is selected but no lock service could be made, for example {@code a RedisConnectionFactory}
     */
    String requirement();
}
