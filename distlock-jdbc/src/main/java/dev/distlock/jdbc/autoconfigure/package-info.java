/**
 * Spring Boot auto-configuration of the JDBC lock store: {@link dev.distlock.jdbc.JdbcLockStore} on the
 * application's {@code DataSource}, with its table created at start-up as {@code distlock.jdbc.initialize-schema}
 * says. Registered as the {@code jdbc} store by
 * {@link dev.distlock.jdbc.autoconfigure.JdbcLockStoreRegistration}.
 */
@NullMarked
package dev.distlock.jdbc.autoconfigure;

import org.jspecify.annotations.NullMarked;
