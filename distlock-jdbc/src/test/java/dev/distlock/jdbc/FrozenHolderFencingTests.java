package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.jdbc.fencing.FencedJdbc;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why fencing at the resource exists: a holder JVM frozen (SIGSTOP, as a long GC pause) past its lease loses the
 * lock without knowing; another node takes it and writes with a higher token; the frozen holder resumes and writes
 * as if it still held the lock. With {@link FencedJdbc} its write is refused and the newer holder's value stays;
 * with a plain update (the second case, the same scene) the stale write goes through and overwrites it.
 */
class FrozenHolderFencingTests {

    private static final String LOCKS = "fenced_locks";

    private static final String TABLE = "fenced_stock";

    private static final String NAME = "stock:1";

    /** The frozen holder's fixed lease: as short as a busy machine allows. */
    private static final long LEASE_MILLIS = 1000;

    private TestDatabase database;

    private StoreLockService node;

    @AfterEach
    void close() throws Exception {
        if (node != null) {
            node.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void theFrozenHoldersWriteIsRefusedOnceANewerHolderWrote(String db) throws Exception {
        Scene scene = play(db, "guarded");
        assertThat(scene.answer()).startsWith("STALE ").contains("Stale fencing token " + scene.frozenToken())
                .contains(TABLE).contains("token " + scene.newerToken()).contains("changed nothing");
        assertThat(balance()).as("the newer holder's value stays").isEqualTo(200);
        assertThat(fence()).isEqualTo(scene.newerToken());
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2 })
    void withoutTheGuardTheFrozenHoldersWriteOverwritesTheNewerOne(String db) throws Exception {
        Scene scene = play(db, "plain");
        assertThat(scene.answer()).isEqualTo("WROTE 1");
        assertThat(balance()).as("the stale write went through").isEqualTo(666);
    }

    /** The scene: freeze the holder past its lease, write as the next holder, thaw the holder and let it write. */
    private Scene play(String db, String mode) throws Exception {
        database = TestDatabase.of(db);
        database.createTable(LOCKS);
        database.update("DROP TABLE IF EXISTS " + TABLE);
        database.update("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, fence BIGINT)");
        database.update("INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100)");
        HikariDataSource pool = database.pool(2);
        node = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(LOCKS)),
                LockConfig.defaults(), LockListener.NONE);
        node.start();
        FencedJdbc fenced = FencedJdbc.of(pool);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        try (HolderJvm holder = HolderJvm.start(FencedHolderProcess.class, database.url(), LOCKS, NAME,
                String.valueOf(LEASE_MILLIS), TABLE, mode, "666")) {
            holder.forEachLine(lines::add);
            long frozenToken = Long.parseLong(next(lines, HolderJvm.LOCKED).substring(HolderJvm.LOCKED.length()));
            holder.pause();
            long newerToken;
            try {
                // Granted once the frozen holder's lease ran out in the database: the wait is the lease.
                try (LockHandle newer = node.lock(NAME, LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                    newerToken = newer.fencingToken();
                    assertThat(newerToken).isGreaterThan(frozenToken);
                    assertThat(fenced.update(newerToken, TABLE, "balance = ?", "id = ?", 200, 1)).isEqualTo(1);
                }
            }
            finally {
                holder.resume();
            }
            holder.send("WRITE");
            String answer = next(lines, "WROTE ", "STALE ");
            return new Scene(frozenToken, newerToken, answer);
        }
    }

    private record Scene(long frozenToken, long newerToken, String answer) {
    }

    private static String next(BlockingQueue<String> lines, String... prefixes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        StringBuilder others = new StringBuilder();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line != null) {
                for (String prefix : prefixes) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                others.append('\n').append(line);
            }
        }
        throw new AssertionError("The holder JVM printed no line starting with " + String.join(" or ", prefixes)
                + " within 60 s; it printed:" + others);
    }

    private long balance() {
        return new JdbcTemplate(database.pool(1)).queryForObject("SELECT balance FROM " + TABLE + " WHERE id = 1",
                Long.class);
    }

    private long fence() {
        return new JdbcTemplate(database.pool(1)).queryForObject("SELECT fence FROM " + TABLE + " WHERE id = 1",
                Long.class);
    }
}
