package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import dev.distlock.test.support.campaign.RateClock;
import org.junit.jupiter.api.Assumptions;

/**
 * A real MariaDB server of the campaign's own (from the machine's binaries; the campaign is skipped, visibly, without
 * them), durable (every commit flushed to the redo log), reached by each node through a proxy of its own with
 * MariaDB Connector/J. Faults: a crash (SIGKILL, InnoDB crash recovery at the restart), a clean restart and a freeze
 * (SIGSTOP, then SIGCONT); plus the campaign's partitions, delays and resets of a node's link. Its wall clock, which
 * {@code UTC_TIMESTAMP(6)} reads, runs {@value ClockFaults#BASE_RATE_PERCENT} % fast for the whole run (libfaketime,
 * where installed), as the other faked stores' clocks do between faults, but is never stepped or made to drift while
 * the server runs: the library can then hand a thread of this multi-threaded server the machine's time instead
 * ({@link RateClock} says why and what was measured). The driver gets a
 * socket timeout so that a call on a blackholed or frozen link ends (a real deployment needs one as well).
 */
final class MariaDbTopology implements CampaignTopology {

    private static final String TABLE = "campaign_lock";

    private final MariaDbTestServer server;

    private final Links links;

    private boolean paused;

    private final Optional<RateClock> clock = RateClock.create("mariadb", 0,
            Double.parseDouble(ClockFaults.BASE_RATE_PERCENT) / 100);

    MariaDbTopology() {
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew(true);
        Assumptions.assumeTrue(started.isPresent(), () -> "campaign on mariadb SKIPPED: "
                + MariaDbTestServer.missing());
        this.server = started.get();
        clock.ifPresent(faked -> {
            // Restarted under the faked clock, which UTC_TIMESTAMP(6) (leases and tokens) then reads; every later
            // start goes on from the offset it reached.
            server.stop();
            server.environment(faked::environment);
            server.start();
        });
        try (HikariDataSource setup = server.pool(1)) {
            TestSchemas.create(setup, "mariadb", TABLE);
        }
        this.links = new Links(List.of(server::port));
    }

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public String spec(String node) {
        return "jdbc|jdbc:mariadb://127.0.0.1:" + links.of(node).get(0).port()
                + "/distlock?user=root&connectTimeout=2000&socketTimeout=5000|" + TABLE;
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public long fixedLeaseMillis() {
        return ClockFaults.fixedLeaseMillis(clock.isPresent());
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.KILL_SERVER, FaultKind.RESTART_SERVER, FaultKind.PAUSE_SERVER);
    }

    @Override
    public synchronized Injected inject(FaultKind kind, Random random, Duration duration) {
        switch (kind) {
            case KILL_SERVER:
                server.kill();
                return new Injected("SIGKILL mariadbd, start again (crash recovery)", server::start);
            case RESTART_SERVER:
                server.stop();
                return new Injected("stop mariadbd (SIGTERM, clean shutdown), start again", server::start);
            case PAUSE_SERVER:
                server.pause();
                paused = true;
                return new Injected("SIGSTOP mariadbd, SIGCONT", this::resume);
            default:
                throw new IllegalArgumentException("mariadb cannot inject " + kind);
        }
    }

    private synchronized void resume() {
        if (paused) {
            server.resume();
            paused = false;
        }
    }

    @Override
    public void heal() {
        resume();
        if (!server.isRunning()) {
            server.start();
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens across crashes: a lock is a committed InnoDB row (flushed at "
                + "every commit), and the token comes from the row and the database clock in the same statement. "
                + "Unavailable (fail closed) while the database is down, frozen or unreachable. Its clock runs 0.9 % "
                + "fast (never stepped while it runs): inside the holders' drift margin.";
    }

    @Override
    public void close() {
        links.close();
        resume();
        server.destroy();
    }
}
