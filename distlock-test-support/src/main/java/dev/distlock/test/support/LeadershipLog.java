package dev.distlock.test.support;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.leader.LeadershipListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the leadership listeners of a test were told, in order, with the time of each call: to check that two
 * candidates never both believed they led.
 */
public final class LeadershipLog {

    /** A listener that ignores everything. */
    public static final LeadershipListener IGNORED = new LeadershipListener() {

        @Override
        public void granted(String group, LockHandle lease) {
        }

        @Override
        public void revoked(String group) {
        }
    };

    private record Event(String node, boolean granted, long nanos) {
    }

    private final List<Event> events = new ArrayList<>();

    /**
     * @param node the candidate's name in the log
     * @return a listener that logs what that candidate is told
     */
    public LeadershipListener listener(String node) {
        return new LeadershipListener() {

            @Override
            public void granted(String group, LockHandle lease) {
                add(new Event(node, true, System.nanoTime()));
            }

            @Override
            public void revoked(String group) {
                add(new Event(node, false, System.nanoTime()));
            }
        };
    }

    private synchronized void add(Event event) {
        events.add(event);
    }

    /** @return the calls so far, as "node granted" / "node revoked" */
    public synchronized List<String> events() {
        return events.stream().map(e -> e.node() + (e.granted() ? " granted" : " revoked")).toList();
    }

    /**
     * @param node a candidate
     * @return the {@link System#nanoTime()} of its first {@code revoked}
     */
    public synchronized long revokedAt(String node) {
        return events.stream().filter(e -> e.node().equals(node) && !e.granted()).findFirst().orElseThrow().nanos();
    }

    /** Checks that every {@code granted} came after the previous leader's {@code revoked}. */
    public synchronized void assertNeverTwoLeaders() {
        String leader = null;
        for (Event event : events) {
            if (event.granted()) {
                assertThat(leader).as("%s granted while %s still led", event.node(), leader).isNull();
                leader = event.node();
            }
            else {
                assertThat(event.node()).as("revoked without leading").isEqualTo(leader);
                leader = null;
            }
        }
    }
}
