package dev.distlock.jdbc.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.LockStoreRegistration;

/**
 * Registers the JDBC lock store as {@code distlock.store=jdbc} (in {@code META-INF/spring.factories}); present
 * when Spring's {@code JdbcTemplate} is on the class path.
 */
public final class JdbcLockStoreRegistration implements LockStoreRegistration {

    /** The id of the JDBC store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "jdbc";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<String> requiredClassNames() {
        // By name: loading this registration must not load them.
        return List.of("dev.distlock.jdbc.JdbcLockStore",
                "org.springframework.jdbc.core.JdbcTemplate");
    }

    @Override
    public String starter() {
        return "dev.distlock:distlock-spring-boot-starter-jdbc";
    }

    @Override
    public String requirement() {
        return "for JDBC a single DataSource (spring.datasource.*)";
    }
}
