package dev.distlock.jdbc;

import dev.distlock.spi.Waiting;
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
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.distlock.jdbc.Answers.answer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What is particular to the JDBC store, on H2 served over TCP: the row stays after release (until the row
 * retention has passed, see {@link JdbcRowSweepTests}) and tokens keep increasing (also after a row is deleted,
 * and above a higher token the release carried),
 * a caller waits no longer than the engine's command timeout even when no connection or no row lock can be had
 * (and an acquire that completes after its caller gave up is undone by the engine's cancel), a cancel frees only
 * its own request's row, renewals in one batch, atomic attempts under contention, and
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
        long token = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
        assertThat(answer(store.release(lease(first, token)))).isEqualTo(ReleaseResult.RELEASED);
        assertThat(owner("kept")).as("row kept, no owner").isEqualTo("<null>");
        LockRequest second = request("kept", "b", 30_000);
        long next = ((Attempt.Granted) answer(store.attempt(second, Waiting.LAST_TRY))).fencingToken();
        assertThat(next).isGreaterThan(token);
        assertThat(((Attempt.Granted) answer(store.attempt(second, Waiting.LAST_TRY))).fencingToken()).as("a repeated attempt keeps its token")
                .isEqualTo(next);
        answer(store.release(lease(second, next)));
        try (Statement delete = server.admin().createStatement()) {
            delete.executeUpdate("DELETE FROM " + TABLE);
        }
        assertThat(((Attempt.Granted) answer(store.attempt(request("kept", "c", 30_000), Waiting.LAST_TRY))).fencingToken())
                .as("above the last token although the row was deleted: tokens start at the database clock")
                .isGreaterThan(next);
    }

    /**
     * A quorum of databases releases its lease on every node with the quorum's token, the highest of a majority: a
     * node keeps it, so the next majority, which shares a node with this one, hands out a higher token whatever
     * the clocks of the nodes and whenever their statements started.
     */
    @Test
    void aReleaseKeepsTheReleasedLeasesTokenWhenItIsHigher() throws Exception {
        JdbcLockStore store = store(2, Duration.ofSeconds(2));
        LockRequest first = request("carried", "a", 30_000);
        long token = ((Attempt.Granted) answer(store.attempt(first, Waiting.LAST_TRY))).fencingToken();
        long quorumToken = token + 3_600_000_000L; // another node's, an hour of the clock ahead
        assertThat(answer(store.release(lease(first, quorumToken)))).isEqualTo(ReleaseResult.RELEASED);
        long next = ((Attempt.Granted) answer(store.attempt(request("carried", "b", 30_000), Waiting.LAST_TRY))).fencingToken();
        assertThat(next).as("above the released lease's token").isGreaterThan(quorumToken);
        LockRequest undone = request("carried-undo", "c", 30_000);
        long undoneToken = ((Attempt.Granted) answer(store.attempt(undone, Waiting.LAST_TRY))).fencingToken();
        answer(store.cancel(undone));
        assertThat(((Attempt.Granted) answer(store.attempt(request("carried-undo", "d", 30_000), Waiting.LAST_TRY))).fencingToken())
                .as("an undo keeps the row's own token").isGreaterThan(undoneToken);
    }

    /**
     * The pool has no connection to give for longer than the engine waits: the caller fails closed at once, and
     * the attempt that the pool serves later is undone by the engine's cancel (the row is freed, not held by a
     * caller that is gone for its whole lease).
     */
    @Test
    void aConnectionThatCannotBeHadInTimeFailsClosedAndWhatItTakesLaterIsFreed() throws Exception {
        JdbcLockStore store = store(1, Duration.ofMillis(300));
        HikariDataSource pool = (HikariDataSource) store.dataSource();
        StoreLockService node = node(store);
        try (Connection only = pool.getConnection()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> node.tryLock("starved", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("distlock.command-timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        }
        // The pool now serves the attempt that was given up, then the cancel chained after it.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(owner("starved")).isEqualTo("<null>"));
        assertThat((answer(store.attempt(request("starved", "b", 30_000), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
    }

    @Test
    void anAcquireBlockedPastTheTimeoutIsUndoneWhenItCompletes() throws Exception {
        JdbcLockStore store = store(2, Duration.ofMillis(300));
        StoreLockService node = node(store);
        answer(store.release(lease(request("blocked", "x", 1), ((Attempt.Granted) answer(store.attempt(request("blocked", "x", 1), Waiting.LAST_TRY))).fencingToken()))); // the row exists, free
        Connection admin = server.admin();
        admin.setAutoCommit(false);
        try (Statement lockRow = admin.createStatement()) {
            lockRow.executeQuery("SELECT * FROM " + TABLE + " WHERE lock_name = 'blocked' FOR UPDATE").close();
            assertThatThrownBy(() -> node.tryLock("blocked", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .isInstanceOf(LockUnavailableException.class);
        }
        finally {
            admin.commit(); // the blocked acquire goes through now, for a caller that is gone
            admin.setAutoCommit(true);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(owner("blocked")).isEqualTo("<null>"));
        assertThat((answer(store.attempt(request("blocked", "next", 30_000), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
    }

    @Test
    void cancelFreesOnlyTheRowOfItsOwnRequest() throws Exception {
        JdbcLockStore store = store(2, Duration.ofSeconds(2));
        LockRequest holder = request("cancelled", "holder", 30_000);
        long token = ((Attempt.Granted) answer(store.attempt(holder, Waiting.LAST_TRY))).fencingToken();
        answer(store.cancel(request("cancelled", "waiter", 30_000)));
        assertThat(owner("cancelled")).as("a waiter's cancel leaves the holder").isEqualTo("holder");
        answer(store.cancel(holder));
        assertThat(owner("cancelled")).as("the holder's own request is undone").isEqualTo("<null>");
        assertThat(answer(store.release(lease(holder, token)))).isEqualTo(ReleaseResult.EXPIRED);
    }

    /** A node on the store whose engine waits for the store's answers as long as the store's statements may run. */
    private StoreLockService node(JdbcLockStore store) {
        StoreLockService node = new StoreLockService(store, LockConfig.defaults()
                .withCommandTimeout(store.config().commandTimeout()), LockListener.NONE);
        node.start();
        resources.add(node);
        return node;
    }

    @Test
    void renewalsOfManyLeasesGoInOneBatchAndReportTheLostOnes() throws Exception {
        JdbcLockStore store = store(2, Duration.ofSeconds(2));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockRequest request = request("renew-" + i, "owner-" + i, 2_000);
            leases.add(lease(request, ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken()));
        }
        try (Statement steal = server.admin().createStatement()) {
            steal.executeUpdate("UPDATE " + TABLE + " SET owner_token = 'thief' WHERE lock_name = 'renew-1'");
        }
        assertThat(answer(store.renew(leases))).containsExactly(RenewalResult.RENEWED, RenewalResult.LOST,
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
                    Attempt attempt = answer(store.attempt(request, Waiting.LAST_TRY));
                    if ((attempt instanceof Attempt.Granted)) {
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        grants.incrementAndGet();
                        holders.decrementAndGet();
                        answer(store.release(lease(request, ((Attempt.Granted) attempt).fencingToken())));
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
        assertThatThrownBy(() -> answer(store.attempt(request("x", "a", 1000), Waiting.LAST_TRY)))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("no_such_table")
                .hasMessageContaining("distlock.jdbc.initialize-schema");
        assertThat(answer(store.health()).up()).isFalse();
        assertThatThrownBy(() -> answer(store.attempt(request("n".repeat(256), "a", 1000), Waiting.LAST_TRY)))
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
