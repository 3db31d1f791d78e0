package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.distlock.test.support.campaign.RateClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The campaign's faked MariaDB clock ({@link RateClock}) on a real {@code mariadbd}: every thread of the server
 * reads the faked time. The nemesis' file-driven clock failed this test (110 of 60,000 reads were 10 s off, the
 * machine's own time), which is why MariaDB's clock is never stepped while the server runs.
 */
@EnabledOnOs(OS.LINUX)
class MariaDbClockTests {

    /** Far enough ahead that a read of the machine's time instead stands out. */
    private static final long OFFSET_MICROS = 10_000_000;

    private static final int SESSIONS = 3;

    private static final int READS = 20_000;

    private static MariaDbTestServer server;

    private static RateClock clock;

    @BeforeAll
    static void startUnderTheFakedClock() {
        Optional<RateClock> faked = RateClock.create("mariadb (MariaDbClockTests)", OFFSET_MICROS, 0.009);
        assumeTrue(faked.isPresent(), "MariaDbClockTests SKIPPED: no libfaketime (Debian's faketime package)");
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew();
        assumeTrue(started.isPresent(), MariaDbTestServer::missing);
        clock = faked.get();
        server = started.get();
        server.stop();
        server.environment(clock::environment);
        server.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.destroy();
        }
    }

    @Test
    void everySessionReadsTheFakedClockAtEveryCall() throws Exception {
        ExecutorService sessions = Executors.newFixedThreadPool(SESSIONS);
        try {
            List<CompletableFuture<long[]>> reads = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                String table = "clock_reads_" + s;
                reads.add(CompletableFuture.supplyAsync(() -> readTheClock(table), sessions));
            }
            for (CompletableFuture<long[]> read : reads) {
                long[] found = read.join(); // {jumps of more than 0.5 s, largest jump back in µs}
                assertThat(found[0]).as("reads 0.5 s or more apart from the read before (largest back: %d µs)",
                        found[1]).isZero();
            }
        }
        finally {
            sessions.shutdownNow();
        }
        try (Connection connection = DriverManager.getConnection(server.url());
                Statement statement = connection.createStatement();
                ResultSet now = statement.executeQuery("SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00',"
                        + " UTC_TIMESTAMP(6))")) {
            now.next();
            Instant machine = Instant.now();
            long ahead = now.getLong(1) - (machine.getEpochSecond() * 1_000_000 + machine.getNano() / 1000);
            assertThat(Duration.ofNanos(ahead * 1000)).as("the server's clock ahead of this JVM's")
                    .isBetween(Duration.ofMillis(9_500), Duration.ofMillis(11_000));
        }
    }

    /**
     * One session reads the clock at every row of a statement ({@code SYSDATE(6)}, unlike {@code NOW(6)}, is read
     * when evaluated), while the other sessions do the same on other server threads.
     *
     * @return {reads at least 0.5 s from the one before, the largest step back in µs}
     */
    private static long[] readTheClock(String table) {
        try (Connection connection = DriverManager.getConnection(server.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (n INT PRIMARY KEY, at DATETIME(6)) ENGINE=MEMORY");
            statement.execute("INSERT INTO " + table + " SELECT seq, SYSDATE(6) FROM seq_1_to_" + READS);
            try (ResultSet jumps = statement.executeQuery("SELECT SUM(ABS(TIMESTAMPDIFF(MICROSECOND, a.at, b.at))"
                    + " >= 500000), -LEAST(0, MIN(TIMESTAMPDIFF(MICROSECOND, a.at, b.at))) FROM " + table + " a JOIN "
                    + table + " b ON b.n = a.n + 1")) {
                jumps.next();
                return new long[] { jumps.getLong(1), jumps.getLong(2) };
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
