package dev.distlock.jdbc.autoconfigure;

import dev.distlock.jdbc.JdbcLockConfig;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * The relational-database store ({@code distlock.jdbc.*}). The table name is validated by {@link JdbcLockConfig}
 * when the store is made, with a message naming the property.
 *
 * @param tableName The JDBC store's table.
 * @param initializeSchema When to create the table: 'embedded' (an embedded database only), 'always' or 'never', as
 *        Spring Boot's own schema initializers.
 */
@ConfigurationProperties("distlock.jdbc")
public record JdbcLockStoreProperties(@DefaultValue(JdbcLockConfig.DEFAULT_TABLE_NAME) String tableName,
        @DefaultValue("embedded") DatabaseInitializationMode initializeSchema) {
}
