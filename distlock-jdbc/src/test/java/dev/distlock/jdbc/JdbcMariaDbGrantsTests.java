package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.sql.init.DatabaseInitializationMode;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.lease;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The privileges the how-to (docs/how-to/mysql.md) tells MySQL and MariaDB users to grant are enough, on a MariaDB
 * server that checks them (a server of its own, whose grant tables are switched on): {@code CREATE} on the database
 * creates the table with {@code initialize-schema: always}, and {@code SELECT, INSERT, UPDATE, DELETE} on the table
 * alone serve every call of the store (locks, permits, renewals, describe, forced releases, health, the row sweep).
 */
class JdbcMariaDbGrantsTests {

    private static final String TABLE = "granted_lock";

    private static final Duration RETENTION = Duration.ofMillis(1_500);

    @Test
    void createOnTheDatabaseMakesTheTableAndFourTablePrivilegesServeEveryCall() throws Exception {
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew();
        Assumptions.assumeTrue(started.isPresent(), MariaDbTestServer::missing);
        MariaDbTestServer server = started.get();
        try (Connection admin = server.admin(); Statement statement = admin.createStatement()) {
            // The server runs without grant tables (as every test server); this connection keeps its rights.
            statement.execute("FLUSH PRIVILEGES");
            statement.execute("CREATE USER 'schema'@'127.0.0.1'");
            statement.execute("GRANT CREATE ON distlock.* TO 'schema'@'127.0.0.1'");
            statement.execute("CREATE USER 'locks'@'127.0.0.1'");
            try (HikariDataSource schema = pool(server, "schema")) {
                assertThat(new JdbcLockSchemaInitializer(schema, DatabaseInitializationMode.ALWAYS, config())
                        .initializeDatabase()).as("the script ran").isTrue();
            }
            statement.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON distlock." + TABLE
                    + " TO 'locks'@'127.0.0.1'");
            try (HikariDataSource locks = pool(server, "locks"); JdbcLockStore store = new JdbcLockStore(locks,
                    config())) {
                store.start(StoreEvents.NONE);
                everyCall(store);
            }
        }
        finally {
            server.destroy();
        }
    }

    private static void everyCall(JdbcLockStore store) {
        assertThat(answer(store.health()).up()).isTrue();
        LockRequest lock = request("granted", "owner-a", 60_000);
        Lease held = lease(lock, granted(store, lock));
        assertThat(answer(store.describe("granted"))).isPresent();
        assertThat(answer(store.renew(List.of(held)))).containsExactly(RenewalResult.RENEWED);
        assertThat(answer(store.release(held))).isEqualTo(ReleaseResult.RELEASED);

        LockRequest permit = new LockRequest("permits", LockType.REENTRANT, "owner-b", Duration.ofSeconds(1),
                Duration.ofMinutes(1), true, 2);
        Lease permitLease = lease(permit, granted(store, permit));
        assertThat(answer(store.describe("permits"))).isPresent();
        assertThat(answer(store.renew(List.of(permitLease)))).containsExactly(RenewalResult.RENEWED);
        assertThat(answer(store.forceRelease("permits"))).isTrue();
        LockRequest again = request("granted", "owner-c", 60_000);
        granted(store, again);
        assertThat(answer(store.forceRelease("granted"))).isTrue();

        // Every row is free now: the sweep deletes them once the retention has passed (the store's own sweeps
        // may come first; they run as the same user).
        await("the sweep deletes the free rows").atMost(Duration.ofSeconds(20)).until(() -> {
            store.sweep();
            return rows(store) == 0;
        });
    }

    private static long granted(JdbcLockStore store, LockRequest request) {
        return ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken();
    }

    private static long rows(JdbcLockStore store) throws Exception {
        try (Connection connection = store.dataSource().getConnection(); Statement statement = connection
                .createStatement(); var rows = statement.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static JdbcLockConfig config() {
        return JdbcLockConfig.defaults().withTableName(TABLE).withCommandTimeout(Duration.ofMillis(500))
                .withRowRetention(RETENTION);
    }

    private static HikariDataSource pool(MariaDbTestServer server, String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:mariadb://127.0.0.1:" + server.port() + "/distlock?user=" + user);
        config.setMaximumPoolSize(2);
        return new HikariDataSource(config);
    }
}
