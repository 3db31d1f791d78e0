package dev.distlock.jdbc;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.Waiting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.lease;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock table stays bounded, as Redis keys expire: rows of names released or expired longer ago than the row
 * retention are deleted by the store's own sweeps, a held lock's row never is, and fencing tokens keep increasing
 * across the deletion and re-creation of a row — also for a row whose token ran ahead of the database clock (a
 * clock that went back, a restored backup), which the sweeps keep until the clock has passed it. On H2 (also in its
 * PostgreSQL mode, as the sample application runs it) and PostgreSQL, with a retention of 1.5 s (the shortest
 * allowed for a 500 ms command timeout is above 1 s).
 */
class JdbcRowSweepTests {

    private static final String TABLE = "sweep_lock";

    private static final Duration RETENTION = Duration.ofMillis(1_500);

    private static JdbcLockStore startedStore(TestDatabase database) {
        JdbcLockStore store = new JdbcLockStore(database.pool(2), JdbcLockConfig.defaults().withTableName(TABLE)
                .withCommandTimeout(Duration.ofMillis(500)).withRowRetention(RETENTION));
        store.start(StoreEvents.NONE);
        return store;
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.H2_POSTGRESQL_MODE, TestDatabase.POSTGRESQL,
            TestDatabase.MARIADB })
    void rowsOfManyFreeNamesAreDeletedAfterTheRetentionButAHeldLocksRowNever(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                LockRequest held = request("held", "holder", 60_000);
                Lease heldLease = lease(held, ((Attempt.Granted) answer(store.attempt(held, Waiting.LAST_TRY))).fencingToken());
                for (int i = 0; i < 300; i++) {
                    LockRequest request = request("entity:" + i, "owner-" + i, 60_000);
                    answer(store.release(lease(request, ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken())));
                }
                List<Lease> expiring = new ArrayList<>();
                for (int i = 0; i < 20; i++) { // taken and never released: their leases expire
                    LockRequest request = request("crashed:" + i, "gone-" + i, 100);
                    expiring.add(lease(request, ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken()));
                }
                // 321 rows on an idle machine; on a loaded one the sweeper may already have deleted the first free
                // rows (their retention runs from their release), but not the ones just written.
                assertThat(rows(database)).as("free rows are kept until their retention ends").isGreaterThan(21L);

                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(rows(database))
                        .as("only the held lock's row is left").isEqualTo(1L));
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", "held"))
                        .isEqualTo("holder");
                assertThat(store.sweep()).as("a sweep now deletes nothing more").isZero();
                assertThat(answer(store.renew(List.of(heldLease)))).containsExactly(RenewalResult.RENEWED);
                assertThat(answer(store.release(heldLease))).isEqualTo(ReleaseResult.RELEASED);
                assertThat(answer(store.release(expiring.get(0))))
                        .as("an expired lease stays expired after its row went")
                        .isEqualTo(ReleaseResult.EXPIRED);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void tokensKeepIncreasingWhenARowIsDeletedAndCreatedAgain(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                long first = lockAndRelease(store, "again", "a");
                long ahead = lockAndRelease(store, "ahead", "a");
                // As if the database clock had gone back by an hour since this token was issued.
                long aheadOfClock = ahead + Duration.ofHours(1).toNanos() / 1_000;
                assertThat(database.update("UPDATE " + TABLE + " SET fencing_token = " + aheadOfClock
                        + " WHERE lock_name = 'ahead'")).isOne();

                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(database.queryValue(
                        "SELECT COUNT(*) FROM " + TABLE + " WHERE lock_name = ?", "again")).isEqualTo(0L));
                Object kept = database.queryValue("SELECT fencing_token FROM " + TABLE + " WHERE lock_name = ?",
                        "ahead");
                assertThat(kept).as("a row whose token is ahead of the clock is kept").isNotNull();
                assertThat(((Number) kept).longValue()).isEqualTo(aheadOfClock);

                assertThat(lockAndRelease(store, "again", "b")).as("the re-created row continues above the old one")
                        .isGreaterThan(first);
                assertThat(lockAndRelease(store, "ahead", "b")).isGreaterThan(aheadOfClock);
            }
        }
    }

    /**
     * The race of a sweep with an acquire of the same row, held still: the acquire has updated a long-expired row
     * but not committed yet, and the sweep, which chose that row, waits for it. Once the acquire commits, the sweep
     * must re-check and keep the row (PostgreSQL re-checks only the outer condition of the delete; H2 the whole
     * one); deleting it would let a second caller take a lock that is held.
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aSweepThatRacesAnAcquireOfTheSameRowKeepsIt(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name)) {
            database.createTable(TABLE);
            HikariDataSource pool = database.pool(2);
            try (JdbcLockStore store = new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                    .withCommandTimeout(Duration.ofSeconds(10)))) {
                RowDialect dialect;
                try (Connection connection = pool.getConnection()) {
                    dialect = RowDialect.of(connection.getMetaData().getDatabaseProductName());
                }
                // Two rows whose lease ended two hours ago (a minute of retention is long over).
                for (String row : List.of("raced", "idle")) {
                    assertThat(database.update("INSERT INTO " + TABLE + " (lock_name, owner_token, fencing_token, "
                            + "lease_until) VALUES ('" + row + "', NULL, " + dialect.clockMicros() + " - 7200000000, "
                            + dialect.now() + " - INTERVAL '2' HOUR)")).isOne();
                }
                ExecutorService sweeper = Executors.newSingleThreadExecutor();
                try (Connection acquirer = pool.getConnection()) {
                    acquirer.setAutoCommit(false);
                    LockRowSql sql = new LockRowSql(TABLE, dialect);
                    boolean key = dialect.acquireAnswersKey();
                    try (PreparedStatement acquire = key
                            ? acquirer.prepareStatement(sql.acquire(), java.sql.Statement.RETURN_GENERATED_KEYS)
                            : acquirer.prepareStatement(sql.acquire())) {
                        sql.bindAcquire(acquire, "raced", "holder", 60_000, "sweep-test");
                        // MySQL's acquire answers the token as its generated key.
                        if (key) {
                            acquire.executeUpdate();
                        }
                        try (ResultSet granted = key ? acquire.getGeneratedKeys() : acquire.executeQuery()) {
                            assertThat(granted.next() && granted.getLong(1) != 0)
                                    .as("the acquire took the expired row").isTrue();
                        }
                    }
                    Future<Integer> sweep = sweeper.submit(store::sweep);
                    await().atMost(Duration.ofSeconds(5)).until(() -> ((Number) database.queryValue(
                            switch (name) {
                                case TestDatabase.POSTGRESQL ->
                                    "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
                                case TestDatabase.MARIADB ->
                                    "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
                                default -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
                            },
                            null)).longValue() > 0);
                    acquirer.commit();
                    assertThat(sweep.get(10, TimeUnit.SECONDS)).as("only the idle row went").isOne();
                }
                finally {
                    sweeper.shutdown();
                }
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", "raced"))
                        .isEqualTo("holder");
                assertThat(answer(store.attempt(request("raced", "second", 60_000), Waiting.LAST_TRY)))
                        .as("no second holder").isInstanceOf(Attempt.Busy.class);
            }
        }
    }

    private static long lockAndRelease(JdbcLockStore store, String name, String owner) {
        LockRequest request = request(name, owner, 60_000);
        long token = ((Attempt.Granted) answer(store.attempt(request, Waiting.LAST_TRY))).fencingToken();
        assertThat(token).isPositive();
        assertThat(answer(store.release(lease(request, token)))).isEqualTo(ReleaseResult.RELEASED);
        return token;
    }

    private static long rows(TestDatabase database) throws Exception {
        return ((Number) database.queryValue("SELECT COUNT(*) FROM " + TABLE, null)).longValue();
    }
}
