package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The database stops while three nodes compete for one lock, then comes back: every call in between fails closed
 * (no work runs without the lock), locking resumes by itself, and the recorded history has no overlap and fencing
 * tokens that kept increasing across the restart. On H2 (server stopped) and on PostgreSQL (an immediate shutdown,
 * i.e. a crash with recovery at the next start; skipped visibly without the binaries) and on MariaDB (a server of
 * its own, shut down cleanly: the test server does not flush its log at every commit, so a crash may lose grants).
 */
class JdbcFaultTests {

    private final LockHistory history = new LockHistory();

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void h2ServerDownFailsClosedAndLockingResumesWithIncreasingTokens() throws Exception {
        H2TestServer server = new H2TestServer("");
        resources.add(server);
        try (HikariDataSource setup = server.pool(1)) {
            server.createTable(setup, "fault_lock");
        }
        restartDuringContention(server::pool, server::stop, server::start);
    }

    @Test
    void postgresCrashFailsClosedAndLockingResumesWithIncreasingTokens() throws Exception {
        PostgresTestServer server = PostgresTestServer.shared();
        try (Connection admin = server.admin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS fault_lock");
        }
        try (HikariDataSource setup = server.pool(1)) {
            TestSchemas.create(setup, "postgresql", "fault_lock");
        }
        restartDuringContention(server::pool, () -> server.stop("immediate"), server::start);
    }

    @Test
    void mariadbServerDownFailsClosedAndLockingResumesWithIncreasingTokens() throws Exception {
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew();
        Assumptions.assumeTrue(started.isPresent(), MariaDbTestServer::missing);
        MariaDbTestServer server = started.get();
        resources.add(server::destroy);
        try (HikariDataSource setup = server.pool(1)) {
            TestSchemas.create(setup, "mariadb", "fault_lock");
        }
        restartDuringContention(server::pool, server::stop, server::start);
    }

    private long lastToken() {
        List<LockHistory.Grant> grants = history.grants();
        return grants.get(grants.size() - 1).fencingToken();
    }

    private void restartDuringContention(java.util.function.IntFunction<HikariDataSource> pools, Runnable stop,
            Runnable start) throws Exception {
        List<StoreLockService> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HikariDataSource pool = pools.apply(4);
            StoreLockService node = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                    .withTableName("fault_lock").withCommandTimeout(Duration.ofMillis(500))),
                    LockConfig.defaults().withLeaseTime(Duration.ofSeconds(3))
                            .withCommandTimeout(Duration.ofMillis(500)),
                    CompositeLockListener.of(List.of(history.listener())));
            node.start();
            nodes.add(node);
            resources.add(pool);
            resources.add(node);
        }
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicBoolean down = new AtomicBoolean();
        AtomicInteger ranWhileDown = new AtomicInteger();
        ConcurrentHashMap<Integer, AtomicLong> unavailable = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, AtomicLong> grants = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> loops = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            int index = n;
            StoreLockService node = nodes.get(n);
            unavailable.put(n, new AtomicLong());
            grants.put(n, new AtomicLong());
            loops.add(pool.submit(() -> {
                while (!stopping.get()) {
                    try {
                        // Read before asking, and again once granted: a lock granted just before the stop may run
                        // its work after it (its lease holds), and a request made at the end of the outage may be
                        // granted after the restart; a request made and granted while the database is down is not.
                        boolean askedWhileDown = down.get();
                        Optional<LockHandle> handle = node.tryLock("fault", LockOptions.defaults()
                                .withWaitTime(Duration.ofSeconds(2)));
                        if (handle.isPresent()) {
                            try (LockHandle held = handle.get()) {
                                history.hold("node-" + index, held, () -> {
                                    if (askedWhileDown && down.get()) {
                                        ranWhileDown.incrementAndGet();
                                    }
                                    grants.get(index).incrementAndGet();
                                });
                            }
                        }
                    }
                    catch (LockUnavailableException ex) {
                        unavailable.get(index).incrementAndGet();
                    }
                    // Think time between two requests of a node, as in an application: the JDBC store has no
                    // cross-node queue, so a node re-locking in a tight loop would keep the others waiting.
                    Thread.sleep(10);
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> grants.values().stream().allMatch(g -> g.get() >= 3));
        long tokenBefore = lastToken();

        stop.run();
        down.set(true);
        // Every node finds the database gone within its command timeout and runs nothing meanwhile.
        await().atMost(Duration.ofSeconds(20)).until(() -> unavailable.values().stream().allMatch(u -> u.get() >= 2));
        assertThatThrownBy(() -> nodes.get(0).runWithLock("fault", () -> ranWhileDown.incrementAndGet()))
                .isInstanceOf(LockUnavailableException.class);
        down.set(false);
        long grantsWhileDown = grants.values().stream().mapToLong(AtomicLong::get).sum();
        long[] atRestart = grants.values().stream().mapToLong(AtomicLong::get).toArray();
        start.run();

        // Locking resumes by itself, on every node.
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long[] now = grants.values().stream().mapToLong(AtomicLong::get).toArray();
            return now[0] > atRestart[0] + 2 && now[1] > atRestart[1] + 2 && now[2] > atRestart[2] + 2;
        });
        stopping.set(true);
        for (Future<?> loop : loops) {
            loop.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(ranWhileDown).as("no lock was granted to a request made while the database was down").hasValue(0);
        assertThat(grants.values().stream().mapToLong(AtomicLong::get).sum()).isGreaterThan(grantsWhileDown);
        assertThat(lastToken()).isGreaterThan(tokenBefore);
        history.assertConsistent();
    }
}
