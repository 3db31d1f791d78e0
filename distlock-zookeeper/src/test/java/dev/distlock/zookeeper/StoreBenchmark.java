package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.spi.LockListener;
import dev.distlock.spi.LockStore;
import org.apache.curator.test.TestingServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A small standalone measurement, ZooKeeper (one in-process Curator test server, with ZooKeeper's default fsync of
 * every write) next to Redis (one embedded redis-server) on the same machine, through the same engine:
 * <ul>
 * <li>A — uncontended lock + unlock on distinct names, 1 and 8 threads: cycles/s, p50/p99 µs;</li>
 * <li>hot key — one name, 3 nodes × 4 threads, ~50 µs of work inside: grants/s, owner changes/s, wait p50/p99.</li>
 * </ul>
 * Not a test (surefire runs only {@code *Tests}): build the test classes and run it on the test class path, e.g.
 * <pre>
 * ./mvnw -q -pl distlock-zookeeper -am test-compile
 * ./mvnw -q -o -pl distlock-zookeeper dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/tmp/cp
 * java -cp "distlock-zookeeper/target/test-classes:distlock-zookeeper/target/classes:distlock-core/target/classes:\
 *   distlock-redis/target/classes:distlock-embedded-redis/target/classes:$(cat /tmp/cp)" \
 *   -Dbench.seconds=4 -Dbench.rounds=3 dev.distlock.zookeeper.StoreBenchmark
 * </pre>
 * {@code -Dbench.stores=zookeeper} runs one store; {@code -Dzookeeper.forceSync=no} turns off the server's fsync of
 * every write (to see the protocol's cost without the disk's).
 */
public final class StoreBenchmark {

    private static final Duration PHASE = Duration.ofSeconds(Long.getLong("bench.seconds", 5));

    private StoreBenchmark() {
    }

    /**
     * @param args unused
     * @throws Exception on a failed run
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        try (TestingServer zk = ZooKeeperServers.server()) {
            RedisServerProcess redis = RedisServerProcess.startOnFreePort();
            try {
                List<LettuceConnectionFactory> factories = new ArrayList<>();
                Supplier<LockStore> redisStore = () -> {
                    LettuceConnectionFactory factory = new LettuceConnectionFactory(
                            new RedisStandaloneConfiguration(redis.host(), redis.port()));
                    factory.afterPropertiesSet();
                    factory.start();
                    factories.add(factory);
                    return new RedisLockStore(factory, RedisLockConfig.defaults().withKeyPrefix("bench"));
                };
                Supplier<LockStore> zkStore = () -> ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                        .withConnectString(zk.getConnectString()).withBasePath("/bench"));
                // Rounds alternate the stores, so that a noisy machine weighs on both alike.
                int rounds = Integer.getInteger("bench.rounds", 1);
                List<String> only = List.of(System.getProperty("bench.stores", "redis,zookeeper").split(","));
                for (int round = 0; round < rounds; round++) {
                    for (String store : only) {
                        Supplier<LockStore> stores = store.equals("redis") ? redisStore : zkStore;
                        uncontended(store, stores, 1);
                        uncontended(store, stores, 8);
                        hotKey(store, stores, 3, 4);
                    }
                }
                factories.forEach(LettuceConnectionFactory::destroy);
            }
            finally {
                redis.stop();
            }
        }
    }

    private static StoreLockService node(Supplier<LockStore> stores) {
        StoreLockService node = new StoreLockService(stores.get(),
                LockConfig.defaults().withWaitTime(Duration.ofSeconds(30)), LockListener.NONE);
        node.start();
        for (int tries = 0; ; tries++) { // until connected
            try {
                node.lock("bench:connect").unlock();
                return node;
            }
            catch (RuntimeException ex) {
                if (tries == 10) {
                    throw ex;
                }
            }
        }
    }

    private static void uncontended(String store, Supplier<LockStore> stores, int threads) throws Exception {
        try (StoreLockService node = node(stores)) {
            for (int phase = 0; phase < 2; phase++) { // warm-up, then measured
                List<long[]> latencies = new ArrayList<>();
                long[] counts = new long[threads];
                long nanos = run(threads, (t, deadline) -> {
                    long[] mine = new long[1 << 20];
                    int n = 0;
                    String prefix = "a:" + System.nanoTime() + ":" + t + ":";
                    while (System.nanoTime() < deadline && n < mine.length) {
                        long start = System.nanoTime();
                        node.lock(prefix + n).unlock();
                        mine[n++] = System.nanoTime() - start;
                    }
                    counts[t] = n;
                    synchronized (latencies) {
                        latencies.add(Arrays.copyOf(mine, n));
                    }
                });
                if (phase == 1) {
                    long cycles = Arrays.stream(counts).sum();
                    long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
                    System.out.printf(Locale.ROOT, "A%-2d %-9s %8.0f cycles/s  p50 %6.0f µs  p99 %6.0f µs%n",
                            threads, store, cycles * 1e9 / nanos, micros(all, 0.5), micros(all, 0.99));
                }
            }
        }
    }

    private static void hotKey(String store, Supplier<LockStore> stores, int nodes, int threadsPerNode)
            throws Exception {
        List<StoreLockService> services = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            services.add(node(stores));
        }
        try {
            for (int phase = 0; phase < 2; phase++) {
                String name = "hot:" + System.nanoTime();
                AtomicLong grants = new AtomicLong();
                AtomicLong ownerChanges = new AtomicLong();
                AtomicLong lastOwner = new AtomicLong(-1);
                long[] perNode = new long[nodes];
                List<long[]> waits = new ArrayList<>();
                long nanos = run(nodes * threadsPerNode, (t, deadline) -> {
                    int nodeIndex = t % nodes;
                    StoreLockService node = services.get(nodeIndex);
                    long[] mine = new long[1 << 18];
                    int n = 0;
                    while (System.nanoTime() < deadline && n < mine.length) {
                        long start = System.nanoTime();
                        try (LockHandle handle = node.lock(name, LockOptions.defaults())) {
                            mine[n++] = System.nanoTime() - start;
                            grants.incrementAndGet();
                            if (lastOwner.getAndSet(nodeIndex) != nodeIndex) {
                                ownerChanges.incrementAndGet();
                            }
                            synchronized (perNode) {
                                perNode[nodeIndex]++;
                            }
                            long workEnd = System.nanoTime() + 50_000;
                            while (System.nanoTime() < workEnd) {
                                Thread.onSpinWait(); // ~50 µs of work under the lock
                            }
                        }
                    }
                    synchronized (waits) {
                        waits.add(Arrays.copyOf(mine, n));
                    }
                });
                if (phase == 1) {
                    long[] all = waits.stream().flatMapToLong(Arrays::stream).sorted().toArray();
                    System.out.printf(Locale.ROOT, "hot %-9s %6.0f grants/s  %6.0f owner changes/s  wait p50 %7.0f µs"
                            + "  p99 %7.0f µs  shares %s%n", store, grants.get() * 1e9 / nanos,
                            ownerChanges.get() * 1e9 / nanos, micros(all, 0.5), micros(all, 0.99),
                            Arrays.toString(perNode));
                }
            }
        }
        finally {
            services.forEach(StoreLockService::close);
        }
    }

    private interface Worker {
        void run(int thread, long deadline) throws Exception;
    }

    private static long run(int threads, Worker worker) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    worker.run(thread, deadline[0]);
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            });
            th.start();
            all.add(th);
        }
        long start = System.nanoTime();
        deadline[0] = start + PHASE.toNanos();
        go.countDown();
        for (Thread th : all) {
            th.join();
        }
        return System.nanoTime() - start;
    }

    private static double micros(long[] sorted, double quantile) {
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1,
                Math.floor(quantile * sorted.length))] / 1000.0;
    }
}
