package dev.distlock.jdbc;

import dev.distlock.spi.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockException;
import dev.distlock.LockType;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.lease;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What is particular to permits in the JDBC store ({@link PermitRows}), called directly as the engine would, on H2
 * (also in its PostgreSQL mode), PostgreSQL and MariaDB (the races also with the nodes' transactions in
 * {@code READ COMMITTED}, which applications on MySQL often set): the rows (a marked name row and one slot row per holder, swept like
 * a lock's once free), grants racing from eight nodes at once never exceeding the permits nor repeating a token,
 * locks and permits racing for one name never holding it together, a forced release of every holder, a name taken by the other kind once every holder is gone, renewals that keep
 * the name row's lease above every holder's, and the names the store refuses.
 */
class JdbcPermitsTests {

    private static final String TABLE = "permit_lock";

    private static final Duration RETENTION = Duration.ofMillis(1_500);

    private static JdbcLockStore startedStore(TestDatabase database) {
        JdbcLockStore store = new JdbcLockStore(database.pool(2), JdbcLockConfig.defaults().withTableName(TABLE)
                .withCommandTimeout(Duration.ofSeconds(1)).withRowRetention(RETENTION));
        store.start(StoreEvents.NONE);
        return store;
    }

    private static LockRequest permit(String name, String owner, int permits, long leaseMillis) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ofSeconds(1), Duration.ofMillis(leaseMillis),
                true, permits);
    }

    private static Lease grant(JdbcLockStore store, LockRequest request) {
        Attempt attempt = answer(store.attempt(request, Waiting.LAST_TRY));
        assertThat((attempt instanceof Attempt.Granted)).as("granted: %s", request).isTrue();
        return lease(request, ((Attempt.Granted) attempt).fencingToken());
    }

    private static long rows(TestDatabase database) throws Exception {
        return ((Number) database.queryValue("SELECT COUNT(*) FROM " + TABLE, null)).longValue();
    }

    /**
     * The slot keys travel as one parameter (an SQL array; on MySQL a JSON array, escaped by the dialect): a name
     * with quotes, a backslash, a tab and a non-ASCII letter finds its own slot rows, and only those.
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void namesWithCharactersThatNeedEscapingFindTheirOwnSlotRows(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                String name = "odd \"quoted\" \\ back\tslash é";
                Lease one = grant(store, permit(name, "one", 2, 60_000));
                Lease two = grant(store, permit(name, "two", 2, 60_000));
                Lease plain = grant(store, permit("odd", "three", 2, 60_000));
                assertThat(answer(store.attempt(permit(name, "four", 2, 60_000), Waiting.LAST_TRY)))
                        .as("both permits of the name are held").isInstanceOf(Attempt.Busy.class);
                assertThat(answer(store.renew(List.of(one, two, plain)))).containsOnly(RenewalResult.RENEWED);
                assertThat(answer(store.release(one))).isEqualTo(ReleaseResult.RELEASED);
                assertThat(grant(store, permit(name, "five", 2, 60_000)).fencingToken())
                        .isGreaterThan(two.fencingToken());
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?",
                        name + PermitRows.SEPARATOR + 0)).isEqualTo("five");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.H2_POSTGRESQL_MODE, TestDatabase.POSTGRESQL,
            TestDatabase.MARIADB })
    void aNameRowMarkedWithThePermitsAndASlotRowPerHolderWhichAreSweptOnceFree(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                List<Lease> held = new ArrayList<>();
                // The holders' lease only has to outlast the checks below: the sweep waits for it to end.
                for (int i = 0; i < 3; i++) {
                    held.add(grant(store, permit("rows", "owner-" + i, 3, 1_500)));
                }
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", "rows"))
                        .isEqualTo("#3");
                assertThat(database.queryValue("SELECT fencing_token FROM " + TABLE + " WHERE lock_name = ?", "rows"))
                        .as("the name row counts the tokens").isEqualTo(held.get(2).fencingToken());
                for (int i = 0; i < 3; i++) {
                    assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?",
                            "rows" + PermitRows.SEPARATOR + i)).isEqualTo("owner-" + i);
                }
                assertThat(rows(database)).isEqualTo(4L);
                long last = held.get(2).fencingToken();
                for (Lease lease : held) {
                    assertThat(answer(store.release(lease))).isEqualTo(ReleaseResult.RELEASED);
                }
                // The name row's lease still runs (it outlasts every holder's), but nobody holds a permit: swept
                // once that lease has ended longer ago than the retention, as the free slot rows are.
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(rows(database)).isZero());
                assertThat(grant(store, permit("rows", "again", 3, 60_000)).fencingToken())
                        .as("tokens go on increasing after the rows went").isGreaterThan(last);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.H2_POSTGRESQL_MODE, TestDatabase.POSTGRESQL,
            TestDatabase.MARIADB, TestDatabase.MARIADB_READ_COMMITTED })
    void grantsRacingFromEightNodesNeverExceedThePermitsNorRepeatAToken(String db) throws Exception {
        int nodes = 8;
        int permits = 3;
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            List<JdbcLockStore> stores = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(nodes);
            try {
                for (int i = 0; i < nodes; i++) {
                    stores.add(startedStore(database));
                }
                List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
                long previousRound = 0;
                int granted = 0;
                for (int round = 0; round < 15; round++) {
                    CountDownLatch start = new CountDownLatch(1);
                    List<Future<Lease>> attempts = new ArrayList<>();
                    for (int node = 0; node < nodes; node++) {
                        JdbcLockStore store = stores.get(node);
                        LockRequest request = permit("race", "r" + round + "-n" + node, permits, 30_000);
                        attempts.add(threads.submit(() -> {
                            start.await();
                            Attempt attempt = answer(store.attempt(request, Waiting.LAST_TRY));
                            return (attempt instanceof Attempt.Granted) ? lease(request, ((Attempt.Granted) attempt).fencingToken()) : null;
                        }));
                    }
                    start.countDown();
                    List<Lease> holders = new ArrayList<>();
                    for (Future<Lease> attempt : attempts) {
                        Lease lease = attempt.get(30, TimeUnit.SECONDS);
                        if (lease != null) {
                            holders.add(lease);
                        }
                    }
                    assertThat(holders).as("holders at once in round %d", round).hasSizeLessThanOrEqualTo(permits);
                    for (Lease holder : holders) {
                        assertThat(holder.fencingToken()).as("above every token of the rounds before")
                                .isGreaterThan(previousRound);
                        tokens.add(holder.fencingToken());
                    }
                    previousRound = tokens.stream().mapToLong(Long::longValue).max().orElse(previousRound);
                    granted += holders.size();
                    for (Lease holder : holders) {
                        assertThat(answer(stores.get(0).release(holder))).isEqualTo(ReleaseResult.RELEASED);
                    }
                }
                assertThat(tokens).doesNotHaveDuplicates();
                assertThat(granted).as("permits granted in 15 rounds").isGreaterThanOrEqualTo(15);
            }
            finally {
                threads.shutdownNow();
                stores.forEach(JdbcLockStore::close);
            }
        }
    }

    /**
     * Locks and permits of one name asked for at once, round after round: the name's holders are either one lock
     * or at most the permits, never both (a lock's one statement and a permit's transaction meet at the name row);
     * a loser is busy or told of the other kind. After a round of permits the name row's lease runs on, so the
     * next round's locks take the name over through the transaction.
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB,
            TestDatabase.MARIADB_READ_COMMITTED })
    void locksAndPermitsRacingForANameNeverHoldItTogether(String db) throws Exception {
        int nodes = 8;
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            List<JdbcLockStore> stores = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(nodes);
            try {
                for (int i = 0; i < nodes; i++) {
                    stores.add(startedStore(database));
                }
                int lockRounds = 0;
                int permitRounds = 0;
                for (int round = 0; round < 20; round++) {
                    CountDownLatch start = new CountDownLatch(1);
                    List<Future<Lease>> attempts = new ArrayList<>();
                    for (int node = 0; node < nodes; node++) {
                        JdbcLockStore store = stores.get(node);
                        String owner = "r" + round + "-n" + node;
                        LockRequest request = node % 2 == 0 ? request("mixed", owner, 30_000)
                                : permit("mixed", owner, 2, 30_000);
                        attempts.add(threads.submit(() -> {
                            start.await();
                            try {
                                Attempt attempt = answer(store.attempt(request, Waiting.LAST_TRY));
                                return (attempt instanceof Attempt.Granted) ? lease(request, ((Attempt.Granted) attempt).fencingToken()) : null;
                            }
                            catch (LockException ex) {
                                assertThat(ex).hasMessageContaining("every caller of a name must ask with the same");
                                return null;
                            }
                        }));
                    }
                    start.countDown();
                    List<Lease> locks = new ArrayList<>();
                    List<Lease> permits = new ArrayList<>();
                    for (Future<Lease> attempt : attempts) {
                        Lease lease = attempt.get(30, TimeUnit.SECONDS);
                        if (lease != null) {
                            (lease.request().permits() > 1 ? permits : locks).add(lease);
                        }
                    }
                    assertThat(locks).as("lock holders in round %d", round).hasSizeLessThanOrEqualTo(1);
                    assertThat(permits).as("permit holders in round %d", round).hasSizeLessThanOrEqualTo(2);
                    assertThat(locks.isEmpty() || permits.isEmpty())
                            .as("a lock and permits held together in round %d", round).isTrue();
                    lockRounds += locks.size();
                    permitRounds += permits.isEmpty() ? 0 : 1;
                    for (Lease holder : locks) {
                        assertThat(answer(stores.get(0).release(holder))).isEqualTo(ReleaseResult.RELEASED);
                    }
                    for (Lease holder : permits) {
                        assertThat(answer(stores.get(0).release(holder))).isEqualTo(ReleaseResult.RELEASED);
                    }
                }
                assertThat(lockRounds + permitRounds).as("rounds with a holder").isPositive();
            }
            finally {
                threads.shutdownNow();
                stores.forEach(JdbcLockStore::close);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aForcedReleaseFreesEveryPermitAndTheNextTokenIsAboveTheirs(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                Lease first = grant(store, permit("forced", "a", 2, 60_000));
                Lease second = grant(store, permit("forced", "b", 2, 60_000));
                assertThat(answer(store.forceRelease("forced"))).isTrue();
                assertThat(answer(store.renew(List.of(first, second))))
                        .containsExactly(RenewalResult.LOST, RenewalResult.LOST);
                assertThat(answer(store.release(first))).isEqualTo(ReleaseResult.EXPIRED);
                Lease lock = grant(store, request("forced", "lock", 60_000));
                assertThat(lock.fencingToken()).as("a lock may take the name at once, above the permits' tokens")
                        .isGreaterThan(second.fencingToken());
                assertThat(answer(store.forceRelease("forced"))).as("the lock").isTrue();
                Lease again = grant(store, permit("forced", "c", 2, 60_000));
                assertThat(again.fencingToken()).isGreaterThan(lock.fencingToken());
                assertThat(answer(store.release(again))).isEqualTo(ReleaseResult.RELEASED);
                assertThat(answer(store.forceRelease("forced"))).as("no holder left").isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void eitherKindTakesTheNameOnceEveryHolderOfTheOtherIsGone(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                Lease permit = grant(store, permit("kinds", "p", 3, 60_000));
                assertThat(((Attempt.Granted) answer(store.attempt(permit("kinds", "p", 3, 60_000), Waiting.LAST_TRY))).fencingToken())
                        .as("a repeated attempt of the holder").isEqualTo(permit.fencingToken());
                assertThatThrownBy(() -> answer(store.attempt(request("kinds", "l", 60_000), Waiting.LAST_TRY)))
                        .isInstanceOf(LockException.class).hasMessageContaining("3 permits");
                assertThat(answer(store.release(permit))).isEqualTo(ReleaseResult.RELEASED);
                // The name row's lease runs on, but no permit is held: a lock takes the name.
                Lease lock = grant(store, request("kinds", "l", 60_000));
                assertThat(lock.fencingToken()).isGreaterThan(permit.fencingToken());
                assertThatThrownBy(() -> answer(store.attempt(permit("kinds", "q", 2, 60_000), Waiting.LAST_TRY)))
                        .isInstanceOf(LockException.class).hasMessageContaining("1 permit,");
                assertThat(answer(store.release(lock))).isEqualTo(ReleaseResult.RELEASED);
                Lease two = grant(store, permit("kinds", "q", 2, 60_000));
                assertThat(two.fencingToken()).isGreaterThan(lock.fencingToken());
                assertThatThrownBy(() -> answer(store.attempt(permit("kinds", "r", 3, 60_000), Waiting.LAST_TRY)))
                        .isInstanceOf(LockException.class).hasMessageContaining("2 permits");
                assertThat(answer(store.release(two))).isEqualTo(ReleaseResult.RELEASED);
                assertThat(grant(store, permit("kinds", "r", 3, 60_000)).fencingToken())
                        .isGreaterThan(two.fencingToken());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void renewalsKeepTheNameRowsLeaseAboveEveryHoldersAndLeaveTheLostOnesLost(String db) throws Exception {
        try (TestDatabase database = TestDatabase.of(db)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                // Shorter than the others' and than its renewal's, but long enough to be still running when renewed on a
                // busy machine (a 500 ms lease could end first, and its renewal be LOST).
                Lease shortOne = grant(store, permit("renewed", "a", 2, 10_000));
                Lease other = grant(store, permit("renewed", "b", 2, 60_000));
                Lease lock = grant(store, request("plain", "c", 60_000));
                // The same holder renewed with a longer lease: the name row's must follow.
                Lease longer = lease(permit("renewed", "a", 2, 120_000), shortOne.fencingToken());
                Lease stranger = lease(permit("renewed", "nobody", 2, 120_000), 1);
                assertThat(answer(store.renew(List.of(longer, lock, stranger, other)))).containsExactly(
                        RenewalResult.RENEWED, RenewalResult.RENEWED, RenewalResult.LOST, RenewalResult.RENEWED);
                // MariaDB's leases are in UTC (MySqlDialect).
                String now = db.equals(TestDatabase.MARIADB) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
                assertThat(database.queryValue("SELECT COUNT(*) FROM " + TABLE + " n WHERE n.lock_name = ?"
                        + " AND n.lease_until > " + now + " + INTERVAL '100' SECOND AND n.lease_until >= ALL"
                        + " (SELECT s.lease_until FROM " + TABLE + " s WHERE s.lock_name <> n.lock_name"
                        + " AND s.lock_name <> 'plain')", "renewed")).isEqualTo(1L);
            }
        }
    }

    @Test
    void namesThatCannotBeStoredAreRefusedWithAClearMessage() throws Exception {
        try (TestDatabase database = TestDatabase.of(TestDatabase.H2)) {
            database.createTable(TABLE);
            try (JdbcLockStore store = startedStore(database)) {
                assertThatThrownBy(() -> store.attempt(request("a" + PermitRows.SEPARATOR + "0", "x", 1000), Waiting.LAST_TRY))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+001F");
                assertThatThrownBy(() -> store.attempt(permit("b" + PermitRows.SEPARATOR, "x", 2, 1000), Waiting.LAST_TRY))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+001F");
                // 255 characters for a lock; a permit's row adds the separator and the index.
                grant(store, request("l".repeat(255), "x", 1000));
                grant(store, permit("p".repeat(253), "x", 2, 1000));
                assertThatThrownBy(() -> store.attempt(permit("q".repeat(254), "x", 2, 1000), Waiting.LAST_TRY))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 253");
                grant(store, permit("r".repeat(252), "x", 11, 1000));
                assertThatThrownBy(() -> store.attempt(permit("s".repeat(253), "x", 11, 1000), Waiting.LAST_TRY))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 252");
                assertThat(answer(store.forceRelease("t" + PermitRows.SEPARATOR))).isFalse();
            }
        }
    }
}
