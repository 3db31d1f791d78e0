package dev.distlock.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The lock stores distlock can auto-configure, and which one an application uses: the one named by
 * {@code distlock.store}, or else the only one on the class path.
 */
enum LockStoreKind {

    /** {@code distlock-redis} on Spring Data Redis. */
    REDIS("dev.distlock.redis.RedisLockStore", "org.springframework.data.redis.connection.RedisConnectionFactory"),

    /** {@code distlock-jdbc} on a DataSource. */
    JDBC("dev.distlock.jdbc.JdbcLockStore", "org.springframework.jdbc.core.JdbcTemplate"),

    /** {@code distlock-zookeeper} on Apache Curator. */
    ZOOKEEPER("dev.distlock.zookeeper.ZooKeeperLockStore", "org.apache.curator.framework.CuratorFramework");

    static final String PROPERTY = "distlock.store";

    private final String storeClass;

    private final String clientClass;

    LockStoreKind(String storeClass, String clientClass) {
        this.storeClass = storeClass;
        this.clientClass = clientClass;
    }

    /** @return the value of {@code distlock.store} that names this store */
    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the classes whose presence selects this store, looked up by name */
    List<String> classNames() {
        return List.of(storeClass, clientClass);
    }

    boolean isPresent(@Nullable ClassLoader classLoader) {
        return ClassUtils.isPresent(storeClass, classLoader) && ClassUtils.isPresent(clientClass, classLoader);
    }

    /**
     * @return the store the application uses, or empty when none is on the class path
     * @throws IllegalStateException when {@code distlock.store} names no store, names one that is not on the class
     *         path, or is unset while several are
     */
    static Optional<LockStoreKind> selected(Environment environment, @Nullable ClassLoader classLoader) {
        List<LockStoreKind> present = Arrays.stream(values()).filter(kind -> kind.isPresent(classLoader)).toList();
        String configured = environment.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            LockStoreKind kind = Arrays.stream(values()).filter(k -> k.id().equalsIgnoreCase(configured.strip()))
                    .findFirst().orElseThrow(() -> new IllegalStateException(PROPERTY + "=" + configured
                            + " names no lock store; use redis, jdbc or zookeeper"));
            if (!present.contains(kind)) {
                throw new IllegalStateException(PROPERTY + "=" + configured + " but " + kind.storeClass + " or "
                        + kind.clientClass + " is not on the class path; add the distlock-spring-boot-starter"
                        + (kind == REDIS ? "" : "-" + kind.id()) + " dependency");
            }
            return Optional.of(kind);
        }
        if (present.size() > 1) {
            throw new IllegalStateException("Several lock stores are on the class path (" + present.stream()
                    .map(LockStoreKind::id).collect(Collectors.joining(", ")) + "): set " + PROPERTY
                    + " to the one to use");
        }
        return present.stream().findFirst();
    }
}
