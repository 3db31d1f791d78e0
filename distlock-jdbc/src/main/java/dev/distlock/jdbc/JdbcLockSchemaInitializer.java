package dev.distlock.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates the lock table at start-up as {@code distlock.jdbc.initialize-schema} says — {@code embedded} (only in an
 * embedded database), {@code always} or {@code never} — like Spring Boot's own schema initializers (Spring Session
 * JDBC, Spring Batch). It runs {@code schema-<platform>.sql} of this package ({@code schema-postgresql.sql},
 * {@code schema-h2.sql}, {@code schema-mysql.sql} for MySQL and MariaDB) with the configured table name in place of
 * {@code distlock_lock}. The scripts only create what is missing, so several instances may run them.
 */
public class JdbcLockSchemaInitializer extends DataSourceScriptDatabaseInitializer {

    /**
     * Where the scripts are, {@code @@platform@@} being the database ({@code h2}, {@code postgresql}, {@code mysql},
     * which MariaDB shares).
     */
    public static final String SCHEMA_LOCATION = "classpath:dev/distlock/jdbc/schema-@@platform@@.sql";

    private static final String TABLE_IN_SCRIPTS = "distlock_lock";

    private final String tableName;

    /**
     * @param dataSource where the table goes
     * @param mode when to create it
     * @param config the store settings (the table name, already validated)
     */
    public JdbcLockSchemaInitializer(DataSource dataSource, DatabaseInitializationMode mode, JdbcLockConfig config) {
        super(dataSource, settings(dataSource, mode));
        this.tableName = config.tableName();
    }

    private static DatabaseInitializationSettings settings(DataSource dataSource, DatabaseInitializationMode mode) {
        DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
        settings.setMode(mode);
        if (mode != DatabaseInitializationMode.NEVER) {
            // Resolving the platform opens a connection: not when the schema is never created.
            // MariaDB takes MySQL's script (Spring Boot would name its platform "mariadb").
            settings.setSchemaLocations(new PlatformPlaceholderDatabaseDriverResolver()
                    .withDriverPlatform(DatabaseDriver.MARIADB, "mysql").resolveAll(dataSource, SCHEMA_LOCATION));
        }
        return settings;
    }

    /** Runs the scripts with the configured table name (a validated identifier) written in. */
    @Override
    protected void runScripts(Scripts scripts) {
        List<Resource> named = new ArrayList<>();
        for (Resource script : scripts) {
            named.add(withTableName(script));
        }
        super.runScripts(new Scripts(named).continueOnError(scripts.isContinueOnError())
                .separator(scripts.getSeparator()).encoding(scripts.getEncoding()));
    }

    private Resource withTableName(Resource script) {
        try {
            String sql = StreamUtils.copyToString(script.getInputStream(), StandardCharsets.UTF_8);
            return new ByteArrayResource(sql.replace(TABLE_IN_SCRIPTS, tableName).getBytes(StandardCharsets.UTF_8),
                    script.getDescription());
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot read the lock table script " + script, ex);
        }
    }
}
