package dev.distlock.core;

import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which release notifications wake a JVM's competitor for a name ({@link LocalQueues#released}). On a hot key
 * shared by several instances every release is a store hand-over, mostly to another instance's waiter: each one
 * used to wake every other instance's competitor, which only parked again until the hand-over window's end. Here
 * the test's own thread is the competitor, so what is woken is counted, not timed.
 */
class LocalQueuesWakeUpTests {

    private static final long WINDOW_MILLIS = 100;

    private final LocalQueues queues = new LocalQueues();

    private final LocalQueues.Entry entry = queues.join("stock", false);

    @AfterEach
    void leave() {
        entry.stopCompeting();
        queues.leave(entry);
        LockSupport.parkNanos(1); // takes the permit an unpark left to this thread, if any
    }

    @Test
    void handOversToOthersWakeTheCompetitorOnlyToBringItsRecheckForward() {
        entry.compete("me");

        assertThat(queues.released("stock", "other-1", WINDOW_MILLIS)).as("first hand-over: a re-check is set")
                .isEqualTo(1);
        long recheck = entry.recheckAtNanos();
        assertThat(queues.released("stock", "other-2", WINDOW_MILLIS)).as("a later re-check: not woken")
                .isZero();
        assertThat(queues.released("stock", "other-3", WINDOW_MILLIS)).isZero();
        assertThat(entry.recheckAtNanos()).as("the re-check it reads when it wakes").isGreaterThan(recheck);
        assertThat(entry.shouldTryNow()).isFalse();

        assertThat(queues.released("stock", "other-4", 0)).as("an earlier re-check: woken").isEqualTo(1);
    }

    @Test
    void aHandOverToTheCompetitorOrAPlainReleaseAlwaysWakesIt() {
        entry.compete("me");
        queues.released("stock", "other", WINDOW_MILLIS);

        assertThat(queues.released("stock", "me", WINDOW_MILLIS)).isEqualTo(1);
        assertThat(entry.shouldTryNow()).isTrue();
        entry.clearWakeUp();

        queues.released("stock", "other", WINDOW_MILLIS);
        assertThat(queues.released("stock", null, 0)).isEqualTo(1);
        assertThat(entry.shouldTryNow()).isTrue();
    }

    @Test
    void aCompetitorThatTookItsWakeUpIsWokenByTheNextHandOver() {
        entry.compete("me");
        queues.released("stock", "other-1", WINDOW_MILLIS);
        entry.clearWakeUp(); // it woke and asked the store again

        assertThat(queues.released("stock", "other-2", WINDOW_MILLIS)).isEqualTo(1);
    }

    @Test
    void nothingIsWokenWithoutACompetitor() {
        assertThat(queues.released("stock", null, 0)).isZero();
    }
}
