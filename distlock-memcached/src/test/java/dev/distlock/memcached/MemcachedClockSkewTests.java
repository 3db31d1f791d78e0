package dev.distlock.memcached;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Memcached store on instances whose wall clocks are apart ({@link MemcachedLockStore#connect(MemcachedLockConfig,
 * java.time.Clock)} with an {@link OffsetFileClock} that a {@link HolderClock} steps), on a real server: a clock
 * less than {@link MemcachedLockStore#CLOCK_SKEW_MICROS} ahead of the holder's waits for its lease, one further
 * ahead takes the name while the holder still counts on it (what the store's guarantee excludes).
 */
class MemcachedClockSkewTests {

    static MemcachedTestServer server;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = MemcachedTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) { // null when the binary is missing and the tests were skipped
            server.close();
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    @Test
    void theClockFollowsItsFileAndStopsAtTheBand() {
        HolderClock written = open(HolderClock.create("test", 300_000));
        OffsetFileClock clock = open(OffsetFileClock.watch(written.file()));
        assertThat(written.step(-120_000)).isEqualTo(-120_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> clock.offsetMicros() == -120_000);
        assertThat(written.step(1_000_000)).as("cut at the band").isEqualTo(420_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> clock.offsetMicros() == 300_000);
        long skew = clock.millis() - System.currentTimeMillis();
        assertThat(skew).isBetween(250L, 350L);
    }

    @Test
    void aClockLessThanTheMarginAheadWaitsUntilTheHoldersLeaseEnded() {
        LockHandle held = node(0).lock("skew-within", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(2)));
        StoreLockService ahead = node(900_000);
        assertThat(ahead.tryLock("skew-within", LockOptions.defaults()
                .withWaitTime(Duration.ZERO))).as("busy while the lease runs").isEmpty();
        LockHandle next = ahead.lock("skew-within", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        assertThat(held.remaining()).as("the holder no longer counts on its lease").isZero();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.unlock();
    }

    @Test
    void aClockFurtherAheadThanTheMarginTakesANameItsHolderStillCountsOn() {
        LockHandle held = node(0).lock("skew-beyond", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(3)));
        // 1.8 s: further ahead than 3 s of Memcached's clock, the store would follow the server's (MemcachedServers).
        LockHandle next = node(1_800_000).lock("skew-beyond", LockOptions.defaults()
                .withWaitTime(Duration.ofSeconds(10)));
        assertThat(held.remaining()).as("the overlap a skew beyond the margin causes").isPositive();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.unlock();
    }

    /** A node whose clock is this far ahead of the machine's. */
    private StoreLockService node(long aheadMicros) {
        HolderClock written = open(HolderClock.create("node", Math.max(aheadMicros, 1)));
        written.step(aheadMicros);
        OffsetFileClock clock = open(OffsetFileClock.watch(written.file()));
        StoreLockService node = new StoreLockService(MemcachedLockStore.connect(MemcachedFixtures.config(
                server.address(), Duration.ofSeconds(2)), clock), LockConfig.defaults(), LockListener.NONE);
        node.start();
        return open(node);
    }

    private <T extends AutoCloseable> T open(T resource) {
        opened.add(resource);
        return resource;
    }
}
