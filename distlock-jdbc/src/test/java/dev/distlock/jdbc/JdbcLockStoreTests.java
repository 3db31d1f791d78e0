package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What is particular to the JDBC store, on H2 served over TCP: the row stays after release (until the row
 * retention has passed, see {@link JdbcRowSweepTests}) and tokens keep increasing (also after a row is deleted),
 * every call is bounded by the command timeout even when no connection or no row lock can be had (and an acquire
 * that completes after its caller gave up is undone), renewals in one batch, atomic attempts under contention, and
 * clear errors for a missing table or an over-long name.
 */
class JdbcLockStoreTests {

    private static final String TABLE = "store_lock";

    private final H2TestServer server = new H2TestServer(";LOCK_TIMEOUT=10000");

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        server.close();
    }

    private JdbcLockStore store(int poolSize, Duration timeout) {
        HikariDataSource pool = server.pool(poolSize);
        resources.add(pool);
        if (resources.size() == 1) {
            server.createTable(pool, TABLE);
        }
        JdbcLockStore store = new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                .withCommandTimeout(timeout));
        resources.add(store);
        return store;
    }

    @Test
    void theRowStaysAfterReleaseAndTokensKeepIncreasingEvenWhenItIsDeleted() throws Exception {
        JdbcLockStore store = store(2, Duration.ofSeconds(2));
        LockRequest first = request("kept", "a", 30_000);
        long token = store.attempt(first, 0, false).fencingToken();
        assertThat(store.release(lease(first, token))).isEqualTo(ReleaseResult.RELEASED);
        assertThat(owner("kept")).as("row kept, no owner").isEqualTo("<null>");
        LockRequest second = request("kept", "b", 30_000);
        long next = store.attempt(second, 0, false).fencingToken();
        assertThat(next).isGreaterThan(token);
        assertThat(store.attempt(second, 0, true).fencingToken()).as("a repeated attempt keeps its token")
                .isEqualTo(next);
        store.release(lease(second, next));
        try (Statement delete = server.admin().createStatement()) {
            delete.executeUpdate("DELETE FROM " + TABLE);
        }
        assertThat(store.attempt(request("kept", "c", 30_000), 0, false).fencingToken())
                .as("above the last token although the row was deleted: tokens start at the database clock")
                .isGreaterThan(next);
    }

    @Test
    void aConnectionThatCannotBeHadInTimeFailsClosedAndTakesNothingLater() throws Exception {
        JdbcLockStore store = store(1, Duration.ofMillis(300));
        HikariDataSource pool = (HikariDataSource) store.dataSource();
        LockRequest request = request("starved", "a", 30_000);
        try (Connection only = pool.getConnection()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> store.attempt(request, 0, false)).isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("distlock.command-timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        }
        // The pool now serves the call that was given up: it must not take the lock any more.
        await().atMost(Duration.ofSeconds(5)).until(() -> pool.getHikariPoolMXBean().getActiveConnections() == 0);
        assertThat(store.attempt(request("starved", "b", 30_000), 0, false).isAcquired()).isTrue();
    }

    @Test
    void anAcquireBlockedPastTheTimeoutIsUndoneWhenItCompletes() throws Exception {
        JdbcLockStore store = store(2, Duration.ofMillis(300));
        store.release(lease(request("blocked", "x", 1), store.attempt(request("blocked", "x", 1), 0, false)
                .fencingToken())); // the row exists, free
        Connection admin = server.admin();
        admin.setAutoCommit(false);
        try (Statement lockRow = admin.createStatement()) {
            lockRow.executeQuery("SELECT * FROM " + TABLE + " WHERE lock_name = 'blocked' FOR UPDATE").close();
            assertThatThrownBy(() -> store.attempt(request("blocked", "late", 30_000), 0, false))
                    .isInstanceOf(LockUnavailableException.class);
        }
        finally {
            admin.commit(); // the blocked acquire goes through now, for a caller that is gone
            admin.setAutoCommit(true);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(owner("blocked")).isEqualTo("<null>"));
        assertThat(store.attempt(request("blocked", "next", 30_000), 0, false).isAcquired()).isTrue();
    }

    @Test
    void renewalsOfManyLeasesGoInOneBatchAndReportTheLostOnes() throws Exception {
        JdbcLockStore store = store(2, Duration.ofSeconds(2));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockRequest request = request("renew-" + i, "owner-" + i, 2_000);
            leases.add(lease(request, store.attempt(request, 0, false).fencingToken()));
        }
        try (Statement steal = server.admin().createStatement()) {
            steal.executeUpdate("UPDATE " + TABLE + " SET owner_token = 'thief' WHERE lock_name = 'renew-1'");
        }
        assertThat(store.renew(leases)).containsExactly(RenewalResult.RENEWED, RenewalResult.LOST,
                RenewalResult.RENEWED);
        try (PreparedStatement query = server.admin().prepareStatement("SELECT DATEDIFF(MILLISECOND, "
                + "CURRENT_TIMESTAMP, lease_until) FROM " + TABLE + " WHERE lock_name = 'renew-2'");
                ResultSet row = query.executeQuery()) {
            row.next();
            assertThat(row.getLong(1)).isBetween(1_000L, 2_000L);
        }
    }

    @Test
    void concurrentAttemptsFromEightNodesNeverGrantTwoHolders() throws Exception {
        List<JdbcLockStore> stores = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            stores.add(store(1, Duration.ofSeconds(5)));
        }
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            JdbcLockStore store = stores.get(t);
            int thread = t;
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 150; i++) {
                    LockRequest request = request("hot", "t" + thread + "-" + i, 30_000);
                    Attempt attempt = store.attempt(request, 0, false);
                    if (attempt.isAcquired()) {
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        grants.incrementAndGet();
                        holders.decrementAndGet();
                        store.release(lease(request, attempt.fencingToken()));
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : done) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(grants.get()).isPositive();
    }

    @Test
    void aMissingTableAndAnOverLongNameAreExplained() {
        HikariDataSource pool = server.pool(1);
        resources.add(pool);
        JdbcLockStore store = new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName("no_such_table"));
        resources.add(store);
        assertThatThrownBy(() -> store.attempt(request("x", "a", 1000), 0, false))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("no_such_table")
                .hasMessageContaining("distlock.jdbc.initialize-schema");
        assertThat(store.health(Duration.ofSeconds(2)).up()).isFalse();
        assertThatThrownBy(() -> store.attempt(request("n".repeat(256), "a", 1000), 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
    }

    @Test
    void settingsAreValidatedNamingTheProperty() {
        assertThatThrownBy(() -> JdbcLockConfig.defaults().withTableName("locks; DROP TABLE x"))
                .hasMessageContaining("distlock.jdbc.table-name");
        assertThatThrownBy(() -> JdbcLockConfig.defaults().withTableName("1locks"))
                .hasMessageContaining("distlock.jdbc.table-name");
        assertThatThrownBy(() -> JdbcLockConfig.defaults().withTableName("a.b.c"))
                .hasMessageContaining("distlock.jdbc.table-name");
        assertThatThrownBy(() -> JdbcLockConfig.defaults().withCommandTimeout(Duration.ZERO))
                .hasMessageContaining("distlock.command-timeout");
        assertThat(JdbcLockConfig.defaults().withTableName("locks.distlock_lock").tableName())
                .isEqualTo("locks.distlock_lock");
        assertThat(JdbcLockConfig.defaults().tableName()).isEqualTo("distlock_lock");
        assertThatThrownBy(() -> JdbcLockConfig.defaults().withCommandTimeout(Duration.ofMillis(1500))
                .withRowRetention(Duration.ofSeconds(2))).hasMessageContaining("rowRetention")
                .hasMessageContaining("distlock.command-timeout").hasMessageContaining("(2s)");
        assertThat(JdbcLockConfig.defaults().rowRetention()).isEqualTo(Duration.ofMinutes(1));
        assertThat(JdbcLockConfig.defaults().withCommandTimeout(Duration.ofSeconds(10)).rowRetention())
                .as("ten times the longest statement").isEqualTo(Duration.ofSeconds(100));
    }

    private String owner(String name) throws SQLException {
        try (PreparedStatement query = server.admin().prepareStatement("SELECT owner_token FROM " + TABLE
                + " WHERE lock_name = ?")) {
            query.setString(1, name);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? String.valueOf(row.getString(1) == null ? "<null>" : row.getString(1)) : "none";
            }
        }
    }

    static LockRequest request(String name, String owner, long leaseMillis) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ofSeconds(1), Duration.ofMillis(leaseMillis),
                true);
    }

    static Lease lease(LockRequest request, long token) {
        return new Lease() {
            @Override
            public LockRequest request() {
                return request;
            }

            @Override
            public long fencingToken() {
                return token;
            }
        };
    }
}
