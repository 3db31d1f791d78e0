package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.spi.LockListener;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark A for the JDBC store (not part of the build: its name matches no surefire include pattern): lock + unlock on a new
 * name every cycle, 1 and 8 threads, on H2 served over TCP and on PostgreSQL; cycles/s and p50/p99 of a cycle.
 * uncontended
 * Run: {@code ./mvnw -pl distlock-jdbc -am verify -Dtest=JdbcUncontendedBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}, results on stdout (target/surefire-reports/*-output.txt).
 */
@Tag("benchmark")
class JdbcUncontendedBenchmark {

    @Test
    void uncontendedLockUnlock() throws Exception {
        try (H2TestServer h2 = new H2TestServer(""); HikariDataSource pool = h2.pool(10)) {
            h2.createTable(pool, "bench_lock");
            run("H2 (TCP server)", pool);
        }
        PostgresTestServer postgres = PostgresTestServer.shared();
        try (Connection admin = postgres.admin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS bench_lock");
        }
        try (HikariDataSource pool = postgres.pool(10)) {
            TestSchemas.create(pool, "postgresql", "bench_lock");
            run("PostgreSQL 15", pool);
        }
    }

    private static void run(String database, DataSource pool) throws Exception {
        try (StoreLockService service = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName("bench_lock")), LockConfig.defaults(), LockListener.NONE)) {
            service.start();
            for (int threads : new int[] { 1, 8 }) {
                measure(service, threads, Duration.ofMillis(1500), "warm-up");
                for (int run = 1; run <= 3; run++) {
                    System.out.println(database + ", " + threads + " thread(s), run " + run + ": "
                            + measure(service, threads, Duration.ofSeconds(3), "run" + run));
                }
            }
        }
    }

    private static String measure(StoreLockService service, int threads, Duration duration, String prefix)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong names = new AtomicLong();
        List<long[]> latencies = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threads);
        long[] counts = new long[threads];
        for (int t = 0; t < threads; t++) {
            long[] samples = new long[2_000_000];
            latencies.add(samples);
            int index = t;
            Thread worker = new Thread(() -> {
                int n = 0;
                while (!stop.get() && n < samples.length) {
                    long start = System.nanoTime();
                    service.lock("bench-" + prefix + "-" + System.identityHashCode(service) + "-"
                            + names.incrementAndGet(), LockOptions.defaults()).unlock();
                    samples[n++] = System.nanoTime() - start;
                }
                counts[index] = n;
                done.countDown();
            });
            workers.add(worker);
        }
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        Thread.sleep(duration.toMillis()); // the measurement window
        stop.set(true);
        done.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        long total = Arrays.stream(counts).sum();
        long[] all = new long[(int) total];
        int at = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(latencies.get(t), 0, all, at, (int) counts[t]);
            at += (int) counts[t];
        }
        Arrays.sort(all);
        return String.format("%,.0f cycles/s, p50 %d µs, p99 %d µs", total / seconds, all[all.length / 2] / 1000,
                all[(int) (all.length * 0.99)] / 1000);
    }
}
