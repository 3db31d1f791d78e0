package dev.distlock.jdbc;

import javax.sql.DataSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;

/** Creates lock tables the way an application does: through {@link JdbcLockSchemaInitializer}. */
final class TestSchemas {

    private TestSchemas() {
    }

    static void create(DataSource dataSource, String platform, String table) {
        JdbcLockSchemaInitializer initializer = new JdbcLockSchemaInitializer(dataSource,
                DatabaseInitializationMode.ALWAYS, JdbcLockConfig.defaults().withTableName(table));
        if (!initializer.initializeDatabase()) {
            throw new IllegalStateException("No lock table script ran for " + platform);
        }
    }
}
