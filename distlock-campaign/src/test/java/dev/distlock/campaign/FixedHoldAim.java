package dev.distlock.campaign;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * Aims a store clock's step forward at the start of a hold on a fixed lease. A step shortens every lease the store
 * is counting down, but only a fixed lease that its work outlasts runs to its end; and the holds waiting for its
 * name are told when to try again from the store's clock (at most {@code StoreAcquirer}'s 500 ms
 * before they ask again), so a step early in the lease has them try at the store's new end of it. That is where a
 * holder counting on its lease for too long (no drift margin) overlaps with the next one, and where the campaign
 * must look to catch it within its short run.
 */
final class FixedHoldAim {

    /** How long the nemesis waits for a fixed lease to begin; a fixed hold begins about every second or two. */
    private static final Duration WAIT = Duration.ofSeconds(3);

    /** A hold that began this recently counts as beginning. */
    private static final long JUST_BEGAN_NANOS = 100_000_000L;

    private FixedHoldAim() {
    }

    /**
     * Waits (at most {@link #WAIT}) until a node of this JVM begins a hold on a fixed lease.
     *
     * @param holding holds in progress: holder thread to {node, start, fixed}, as the campaign keeps them
     * @param timeline the nemesis' timeline, which gets a line saying whose hold it aimed at
     */
    static void awaitStart(Map<String, Object[]> holding, List<String> timeline) {
        try {
            String node = await("a hold on a fixed lease beginning").atMost(WAIT).pollInterval(Duration.ofMillis(2))
                    .until(() -> {
                        long now = System.nanoTime();
                        return holding.values().stream()
                                .filter(h -> (boolean) h[2] && now - (long) h[1] < JUST_BEGAN_NANOS)
                                .map(h -> (String) h[0]).findFirst().orElse(null);
                    }, Objects::nonNull);
            timeline.add(System.nanoTime() / 1000 + " µs: " + node + " began a hold on a fixed lease");
        }
        catch (ConditionTimeoutException ex) {
            timeline.add(System.nanoTime() / 1000 + " µs: no hold on a fixed lease began within " + WAIT);
        }
    }
}
