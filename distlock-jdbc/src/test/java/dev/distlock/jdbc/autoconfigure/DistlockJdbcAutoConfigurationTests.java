package dev.distlock.jdbc.autoconfigure;

import java.nio.file.Path;
import java.util.UUID;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockPropertyFailureAnalyzer;
import dev.distlock.core.StoreLockService;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.AnotherStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC lock store on Spring Boot's DataSource auto-configuration, against H2: chosen as the only store or by
 * {@code distlock.store=jdbc} next to another store, its table created as {@code distlock.jdbc.initialize-schema}
 * says, and a bad table name failing start-up with the property named. This module's class path is a JDBC
 * application's; the tests with two stores add {@link AnotherStore}.
 */
class DistlockJdbcAutoConfigurationTests {

    @TempDir
    static Path anotherStoreModule;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    AnotherStore.Config.class, DistlockJdbcAutoConfiguration.class, DistlockAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

    @Test
    void theOnlyStoreOnTheClassPathIsChosenAndLocksInTheDatabase() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LockStore.class).hasSingleBean(JdbcLockStore.class)
                    .hasSingleBean(StoreLockService.class);
            LockService locks = context.getBean(LockService.class);
            try (LockHandle handle = locks.lock("orders:1")) {
                assertThat(owner(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), "distlock_lock", "orders:1")).isNotNull();
                assertThat(locks.tryLock("orders:1", LockOptions.defaults().withWaitTime(java.time.Duration.ZERO)))
                        .isEmpty();
            }
            assertThat(owner(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), "distlock_lock", "orders:1"))
                    .as("the row stays, without an owner").isNull();
        });
    }

    @Test
    void distlockStoreJdbcChoosesItWhenAnotherStoreIsOnTheClassPathToo() {
        runner.withClassLoader(AnotherStore.classLoader(anotherStoreModule)).withPropertyValues("distlock.store=jdbc")
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockStore.class).doesNotHaveBean(InMemoryLockStore.class);
                    context.getBean(LockService.class).lock("both").unlock();
                });
    }

    @Test
    void bothStoresWithoutDistlockStoreFailStartUpNamingTheProperty() {
        runner.withClassLoader(AnotherStore.classLoader(anotherStoreModule)).run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.store")
                .hasMessageContaining("jdbc, " + AnotherStore.ID));
    }

    @Test
    void embeddedModeCreatesTheTableInAnEmbeddedDatabaseOnlyWithTheConfiguredName() {
        runner.withPropertyValues("distlock.store=jdbc", "distlock.jdbc.table-name=app_locks").run(context -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            context.getBean(LockService.class).lock("named").unlock();
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM app_locks", Integer.class)).isOne();
            assertThat(tableExists(jdbc, "DISTLOCK_LOCK")).isFalse();
        });
    }

    @Test
    void embeddedModeLeavesAServerDatabaseAloneAndAlwaysCreatesTheTable(@TempDir Path directory) {
        String fileDatabase = "spring.datasource.url=jdbc:h2:file:" + directory.resolve("db");
        runner.withPropertyValues("distlock.store=jdbc", fileDatabase).run(context -> assertThat(tableExists(
                new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), "DISTLOCK_LOCK")).as("not an embedded database").isFalse());
        runner.withPropertyValues("distlock.store=jdbc", fileDatabase, "distlock.jdbc.initialize-schema=always")
                .run(context -> assertThat(tableExists(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), "DISTLOCK_LOCK"))
                        .isTrue());
    }

    @Test
    void neverModeCreatesNoTable() {
        runner.withPropertyValues("distlock.store=jdbc", "distlock.jdbc.initialize-schema=never").run(context -> {
            assertThat(tableExists(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), "DISTLOCK_LOCK")).isFalse();
            assertThat(context.getBean(StoreLockService.class).storeHealth(java.time.Duration.ofSeconds(2)).details()
                    .get("error").toString()).contains("distlock.jdbc.initialize-schema");
        });
    }

    @Test
    void badTableNameFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("distlock.store=jdbc", "distlock.jdbc.table-name=locks; DROP TABLE x")
                .run(context -> {
                    assertThat(context).hasFailed().getFailure().rootCause()
                            .isInstanceOf(InvalidPropertyException.class)
                            .hasMessageContaining("distlock.jdbc.table-name");
                    // Reported as Boot's Description / Action block naming the property.
                    assertThat(new DistlockPropertyFailureAnalyzer().analyze(context.getStartupFailure()))
                            .satisfies(analysis -> assertThat(analysis.getDescription())
                                    .contains("distlock.jdbc.table-name"));
                });
    }

    private static String owner(JdbcTemplate jdbc, String table, String name) {
        return jdbc.queryForObject("SELECT owner_token FROM " + table + " WHERE lock_name = ?", String.class, name);
    }

    private static boolean tableExists(JdbcTemplate jdbc, String table) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?",
                Integer.class, table) > 0;
    }
}
