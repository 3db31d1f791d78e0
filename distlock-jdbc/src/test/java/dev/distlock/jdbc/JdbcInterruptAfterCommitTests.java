package dev.distlock.jdbc;

import dev.distlock.spi.Waiting;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.Attempt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.jdbc.Answers.answer;
import static dev.distlock.jdbc.JdbcLockStoreTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An interrupt that reaches the caller after its acquire committed, but before the store's thread handed the result
 * over, must not drop the grant: the caller either gets the lock or the grant is undone (by the engine's cancel,
 * chained after the attempt). Otherwise the row stays owned by a request nobody holds, and every other caller is
 * locked out for a whole lease. The window is held open by a connection whose return to the pool (which comes after
 * the commit) waits for the test. Likewise a failure to return that connection must neither fail nor repeat the
 * committed call.
 */
class JdbcInterruptAfterCommitTests {

    private static final String TABLE = "interrupt_lock";

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void anInterruptAfterTheAcquireCommittedLeavesNoPhantomHolder(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name)) {
            database.createTable(TABLE);
            CountDownLatch committed = new CountDownLatch(1);
            CountDownLatch goOn = new CountDownLatch(1);
            DataSource dataSource = firstCloseWaits(database.pool(2), committed, goOn);
            JdbcLockStore store = new JdbcLockStore(dataSource, JdbcLockConfig.defaults().withTableName(TABLE)
                    .withCommandTimeout(Duration.ofSeconds(5)));
            try (StoreLockService node = new StoreLockService(store, LockConfig.defaults()
                    .withCommandTimeout(Duration.ofSeconds(5)), LockListener.NONE)) {
                node.start();
                CompletableFuture<Optional<LockHandle>> outcome = new CompletableFuture<>();
                Thread caller = new Thread(() -> {
                    try {
                        outcome.complete(node.tryLock("interrupted", LockOptions.defaults()
                                .withWaitTime(Duration.ZERO)));
                    }
                    catch (Throwable ex) {
                        outcome.completeExceptionally(ex);
                    }
                }, "interrupted-caller");
                caller.start();
                assertThat(committed.await(10, TimeUnit.SECONDS)).as("the acquire committed").isTrue();
                caller.interrupt(); // while the store's thread still holds the result
                caller.join(TimeUnit.SECONDS.toMillis(10));
                goOn.countDown();
                assertThat(outcome).isDone();
                if (outcome.isCompletedExceptionally()) {
                    assertThat(outcome).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
                            .havingCause().isInstanceOf(LockUnavailableException.class)
                            .withMessageContaining("Interrupted");
                    // Undone: the row is free again long before the minute of its lease.
                    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(database.queryValue(
                            "SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", "interrupted")).isNull());
                    assertThat(answer(store.attempt(request("interrupted", "owner-b", 60_000), Waiting.LAST_TRY)))
                            .isInstanceOf(Attempt.Granted.class);
                }
                else {
                    assertThat(outcome.get()).as("delivered").isPresent();
                    outcome.get().get().unlock();
                }
            }
        }
    }

    /**
     * The same window seen from the other side: returning the connection fails after the acquire committed. The
     * grant must be delivered, and stay in the table: not turned into a failure (the row would stay owned by
     * nobody) nor run again on another connection, which found the call already done and undid the grant behind
     * the caller's back.
     */
    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aFailureToReturnTheConnectionAfterTheCommitStillDeliversTheGrant(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name)) {
            database.createTable(TABLE);
            DataSource dataSource = firstCloseFails(database.pool(2));
            try (JdbcLockStore store = new JdbcLockStore(dataSource, JdbcLockConfig.defaults().withTableName(TABLE)
                    .withCommandTimeout(Duration.ofSeconds(5)))) {
                Attempt attempt = answer(store.attempt(request("returned", "owner-a", 60_000), Waiting.LAST_TRY));
                assertThat(attempt).isInstanceOf(Attempt.Granted.class);
                assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?",
                        "returned")).as("still held by the caller").isEqualTo("owner-a");
            }
        }
    }

    /** A data source whose first connection goes back to the pool but reports it broken ({@code 08006}). */
    private static DataSource firstCloseFails(DataSource target) {
        AtomicBoolean first = new AtomicBoolean(true);
        return Proxies.of(DataSource.class, (proxy, method, args) -> {
            Object result = method.invoke(target, args);
            if (!(result instanceof Connection connection) || !first.getAndSet(false)) {
                return result;
            }
            return Proxies.of(Connection.class, (p, m, a) -> {
                Object value = m.invoke(connection, a);
                if (m.getName().equals("close")) {
                    throw new SQLException("Connection reset while returning it", "08006");
                }
                return value;
            });
        });
    }

    /** A data source whose first connection, once closed (after its work committed), waits before going back. */
    private static DataSource firstCloseWaits(DataSource target, CountDownLatch closing, CountDownLatch goOn) {
        AtomicBoolean first = new AtomicBoolean(true);
        return Proxies.of(DataSource.class, (proxy, method, args) -> {
            Object result = method.invoke(target, args);
            if (!(result instanceof Connection connection) || !first.getAndSet(false)) {
                return result;
            }
            return Proxies.of(Connection.class, (p, m, a) -> {
                if (m.getName().equals("close")) {
                    closing.countDown();
                    if (!goOn.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("The test never let the connection go back");
                    }
                }
                return m.invoke(connection, a);
            });
        });
    }
}
