package dev.distlock.jdbc;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import dev.distlock.test.support.campaign.FakedClock;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;


/**
 * A real PostgreSQL server (distlock-jdbc's test server; the campaign is skipped, visibly, without one), reached by
 * each node through a proxy of its own. Faults: a crash (immediate shutdown, WAL replay at the restart) and a clean
 * restart; its wall clock, which {@code now()} reads, stepped or drifting (libfaketime, where installed:
 * {@link ClockFaults}; the server is restarted under it); plus the campaign's partitions, delays and resets of a
 * node's link. The JDBC driver gets a socket timeout
 * so that a call on a blackholed link ends (a real deployment needs one as well).
 */
final class PostgresTopology implements CampaignTopology {

    private static final String TABLE = "campaign_lock";

    private final PostgresCampaignServer server = PostgresCampaignServer.shared(TABLE);

    private final Links links = new Links(List.of(server::port));

    private final Optional<FakedClock> clock = FakedClock.create("postgres").map(ClockFaults::prepare);

    PostgresTopology() {
        clock.ifPresent(server::restartUnder);
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String spec(String node) {
        return "jdbc|jdbc:postgresql://127.0.0.1:" + links.of(node).get(0).port()
                + "/postgres?user=postgres&connectTimeout=2&socketTimeout=5|" + TABLE;
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public long fixedLeaseMillis() {
        return ClockFaults.fixedLeaseMillis(clock);
    }

    @Override
    public List<FaultKind> serverFaults() {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.KILL_SERVER, FaultKind.RESTART_SERVER));
        faults.addAll(ClockFaults.kinds(clock));
        return faults;
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        switch (kind) {
            case KILL_SERVER:
                server.crash();
                return new Injected("crash postgres (immediate shutdown), start again", server::start);
            case RESTART_SERVER:
                server.stop();
                return new Injected("stop postgres (fast), start again", server::start);
            case CLOCK_STEP:
            case CLOCK_DRIFT:
                return ClockFaults.inject(kind, clock.orElseThrow(), random, duration);
            default:
                throw new IllegalArgumentException("postgres cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        clock.ifPresent(FakedClock::stopDrift);
        if (!server.isUp()) {
            server.start();
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens across crashes: a lock is a committed row, and the token "
                + "comes from the row in the same transaction. Unavailable (fail closed) while the database is down "
                + "or unreachable. Its clock (leases by now(), tokens for a free name) may run up to 0.9 % fast or "
                + "step forward, gaining at most 10 ms in any second: inside the holders' drift margin.";
    }

    @Override
    public void close() {
        links.close();
        clock.ifPresent(FakedClock::close);
    }
}
