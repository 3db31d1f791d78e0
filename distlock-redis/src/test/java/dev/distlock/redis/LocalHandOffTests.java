package dev.distlock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.RenewalResult;
import dev.distlock.test.support.CountingLockStore;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Local hand-off against a real Redis: threads of one JVM pass the lock to each other without a Redis round trip,
 * every holder gets its own increasing fencing token, other JVMs are served within the streak bound, FAIR never
 * hands off locally, and a JVM killed in the middle of a streak never leaves a higher token behind than the next
 * one Redis issues.
 */
class LocalHandOffTests {

    private static final Logger log = LoggerFactory.getLogger(LocalHandOffTests.class);

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final LockHistory history = new LockHistory();

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    private StoreLockService node(int maxCount, Duration maxTime) {
        return nodes.node(nodes.factory(server), LockConfig.defaults().withWaitTime(Duration.ofSeconds(30))
                .withLocalHandOff(maxCount, maxTime), LockNodes.redisConfig("handoff"),
                CompositeLockListener.of(List.of(history.listener())));
    }

    /** Threads on the nodes take the lock in a loop with a little work inside, until {@code grants} are reached. */
    private void hammer(String name, LockOptions options, int grants, StoreLockService... nodesAndThreads)
            throws Exception {
        AtomicInteger remaining = new AtomicInteger(grants);
        ExecutorService pool = Executors.newFixedThreadPool(nodesAndThreads.length);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < nodesAndThreads.length; t++) {
            StoreLockService node = nodesAndThreads[t];
            String holder = node + "/" + t;
            workers.add(pool.submit(() -> {
                while (remaining.getAndDecrement() > 0) {
                    try (LockHandle handle = node.lock(name, options)) {
                        history.hold(holder, handle, () -> spin(50_000));
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Test
    void threadsOfOneJvmHandTheLockOnWithoutRedisAndWithIncreasingTokens() throws Exception {
        StoreLockService a = node(100, Duration.ofMillis(50));
        StoreLockService b = node(100, Duration.ofMillis(50));
        StringRedisTemplate redis = nodes.redis(server);
        long before = LockNodes.calls(redis, "evalsha");
        hammer("hot", LockOptions.defaults(), 600, a, a, a, a, a, a, b, b);
        long scripts = LockNodes.calls(redis, "evalsha") - before;
        log.info("600 grants over two nodes took {} scripts in Redis", scripts);
        assertThat(scripts).as("most grants were local hand-offs, not acquire + release").isLessThan(600);
        history.assertConsistent();
    }

    @Test
    void anotherJvmIsServedWithinTheStreakBound() throws Exception {
        StoreLockService busy = node(5, Duration.ofMinutes(1));
        StoreLockService other = node(5, Duration.ofMinutes(1));
        other.lock("warm").unlock();
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.storeOf(other).isSubscribed());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong localGrants = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    try (LockHandle handle = busy.lock("streak")) {
                        localGrants.incrementAndGet();
                        spin(50_000);
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> localGrants.get() > 200);
        List<Long> overtaken = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            long grantsBefore = localGrants.get();
            try (LockHandle handle = other.lock("streak")) {
                overtaken.add(localGrants.get() - grantsBefore);
            }
        }
        log.info("The other JVM got the lock after {} local grants of the busy one", overtaken);
        // Once queued in Redis it waits for the streak in progress (a store grant and at most 5 hand-offs); before its
        // request lands the busy JVM may start one more, and on a loaded machine (CI's later passes, two test JVMs on
        // two cores beside six spinning threads) it may miss its 100 ms reservation a few times in one round: a few
        // streaks in the typical round, never an open-ended run (without the bound the busy JVM would keep the lock
        // for its one-minute streak time, and the other's lock() would time out).
        assertThat(overtaken.stream().sorted().toList().get(2)).as("the median round of %s", overtaken)
                .isLessThanOrEqualTo(4 * (5 + 1));
        assertThat(overtaken).allSatisfy(overtook -> assertThat(overtook).isLessThanOrEqualTo(20 * (5 + 1)));
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
    }

    @Test
    void aStreakEndsAfterItsTimeEvenWithoutACountBound() throws Exception {
        StoreLockService busy = node(1_000_000, Duration.ofMillis(20));
        StoreLockService other = node(1_000_000, Duration.ofMillis(20));
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch running = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            pool.submit(() -> {
                running.countDown();
                while (!stop.get()) {
                    try (LockHandle handle = busy.lock("timed")) {
                        spin(50_000);
                    }
                }
                return null;
            });
        }
        running.await();
        other.lock("warm").unlock();
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.storeOf(other).isSubscribed());
        List<Long> waits = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            other.lock("timed").unlock();
            waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        stop.set(true);
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        log.info("The other JVM waited {} ms while a 20 ms streak bound held", waits);
        assertThat(waits.stream().sorted().toList().get(2)).as("median wait of " + waits).isLessThan(200);
    }

    @Test
    void fairLocksAreNeverHandedOffLocally() throws Exception {
        StoreLockService a = node(100, Duration.ofMillis(50));
        StringRedisTemplate redis = nodes.redis(server);
        long before = LockNodes.calls(redis, "evalsha");
        hammer("fair", LockOptions.defaults().withType(LockType.FAIR), 100, a, a, a, a);
        assertThat(LockNodes.calls(redis, "evalsha") - before).as("an acquire and a release per grant")
                .isGreaterThanOrEqualTo(200);
        history.assertConsistent();
    }

    @Test
    void aJvmKilledInTheMiddleOfALocalStreakNeverLeavesAHigherTokenBehind() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                HandOffProcess.class.getName(), String.valueOf(server.port()), "streak-crash")
                .redirectErrorStream(true).start();
        long highest = 0;
        int tokens = 0;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            long last = 0;
            for (String line = out.readLine(); line != null && tokens < 5000; line = out.readLine()) {
                if (line.startsWith("TOKEN ")) {
                    long token = Long.parseLong(line.substring("TOKEN ".length()));
                    assertThat(token).as("tokens in the child's grant order").isGreaterThan(last);
                    last = token;
                    highest = Math.max(highest, token);
                    tokens++;
                }
            }
        }
        finally {
            child.destroyForcibly(); // SIGKILL in the middle of a streak
            child.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(tokens).isEqualTo(5000);
        StoreLockService survivor = nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(60)),
                LockNodes.redisConfig("crash"));
        try (LockHandle handle = survivor.lock("streak-crash")) {
            log.info("Highest token of the killed JVM {}, first token after it {}", highest, handle.fencingToken());
            assertThat(handle.fencingToken()).isGreaterThan(highest);
        }
    }

    @Test
    void aLeaseWhoseRenewalsFailIsNotHandedToALocalWaiter() throws Exception {
        AtomicBoolean failRenewals = new AtomicBoolean();
        CountingLockStore store = new CountingLockStore(new ForwardingLockStore(
                new RedisLockStore(nodes.factory(server), LockNodes.redisConfig("renewals"))) {
            @Override
            public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                return failRenewals.get()
                        ? CompletableFuture.completedFuture(Collections.nCopies(leases.size(), RenewalResult.ERROR))
                        : super.renew(leases);
            }
        });
        AtomicInteger failedRuns = new AtomicInteger();
        Duration lease = Duration.ofMillis(4500);
        StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                .withWaitTime(Duration.ofSeconds(20)).withLeaseTime(lease)
                .withLocalHandOff(100, Duration.ofMinutes(1)), new LockListener() { // a streak outlasting the test
                    @Override
                    public void renewed(RenewalResult result, int locks) {
                        if (result == RenewalResult.ERROR) {
                            failedRuns.incrementAndGet();
                        }
                    }
                });
        service.start();
        try {
            // Control: a healthy lease goes to the queued thread without a store acquire.
            LockHandle first = service.lock("renewals");
            long attempts = store.attempts();
            Future<LockHandle> control = queuedLock(service, "renewals");
            first.unlock();
            control.get(10, TimeUnit.SECONDS).unlock();
            assertThat(store.attempts()).as("a local hand-off makes no store acquire").isEqualTo(attempts);

            LockHandle held = service.lock("renewals");
            Future<LockHandle> waiter = queuedLock(service, "renewals");
            failRenewals.set(true);
            long failingFrom = System.nanoTime();
            // Over two thirds of the lease without a renewal (the watchdog tried): less than a third is left, and
            // the rest is still valid.
            await().atMost(Duration.ofSeconds(10)).until(() -> failedRuns.get() >= 1
                    && System.nanoTime() - failingFrom > lease.toNanos() * 2 / 3 + 50_000_000L);
            assertThat(held.isHeld()).as("the lease is still within its deadline").isTrue();
            attempts = store.attempts();
            held.unlock();
            waiter.get(10, TimeUnit.SECONDS).unlock();
            assertThat(store.attempts()).as("the waiter acquired in Redis, not the last third of a failing lease")
                    .isEqualTo(attempts + 1);
        }
        finally {
            service.close();
        }
    }

    /** A thread of this JVM that asks for the held lock and is parked in the local queue when this returns. */
    private static Future<LockHandle> queuedLock(StoreLockService service, String name) {
        FutureTask<LockHandle> task = new FutureTask<>(() -> service.lock(name));
        Thread thread = new Thread(task, "queued-" + name);
        thread.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
        return task;
    }
}
