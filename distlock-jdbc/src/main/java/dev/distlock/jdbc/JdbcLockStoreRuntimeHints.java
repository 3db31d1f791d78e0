package dev.distlock.jdbc;

import java.sql.Connection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) of the JDBC store: the schema scripts that {@link JdbcLockSchemaInitializer}
 * reads from the class path, and HikariCP's {@code evictConnection(Connection)}, which {@link ConnectionPools} calls
 * by reflection to take a broken connection out of the pool (without it a native image falls back to aborting the
 * connection). Registered in {@code META-INF/spring/aot.factories}.
 */
final class JdbcLockStoreRuntimeHints implements RuntimeHintsRegistrar {

    /** The schema scripts, one per database ({@link JdbcLockSchemaInitializer#SCHEMA_LOCATION}). */
    static final String SCHEMA_SCRIPTS = "dev/distlock/jdbc/schema-*.sql";

    static final String HIKARI_DATA_SOURCE = "com.zaxxer.hikari.HikariDataSource";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCHEMA_SCRIPTS);
        hints.reflection().registerType(TypeReference.of(HIKARI_DATA_SOURCE), type -> type.withMethod(
                "evictConnection", List.of(TypeReference.of(Connection.class)), ExecutableMode.INVOKE));
    }
}
