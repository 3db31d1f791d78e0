package dev.distlock.campaign;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import org.jspecify.annotations.Nullable;

/**
 * A node's leadership candidate in the campaign ({@link LockService#campaign}): every node campaigns for the group
 * {@value #GROUP}, and each term — from {@code granted} to {@code revoked} — is reported to a {@link Sink} with the
 * times of both calls, so that the history checks "revoked before anyone else is granted": a term is counted on
 * until its leader was told {@code revoked}, or earlier if the node's listener reported the lease lost, and no other
 * term of the group may begin before that moment.
 * <p>
 * The leader gives the leadership up after 0.3 to 1.5 s ({@link Leadership#yieldLeadership()}), so that it moves
 * between the nodes also without faults; one {@code granted} in four does the leader's first work inline, 0.2 to 2 s
 * (DESIGN §2: {@code revoked} must come in time also while {@code granted} has not returned).
 */
final class LeadershipWorker implements LeadershipListener, AutoCloseable {

    /** The group every node campaigns for. */
    static final String GROUP = "campaign";

    /** The name under which terms are recorded in the history. */
    static final String TERM = "leadership " + GROUP;

    /** Where a candidate reports its terms. */
    interface Sink {

        /** The leader was told {@code granted} (reported at once, so that a kill still leaves a trace). */
        void granted(long token, long grantedNanos);

        /**
         * The leader was told {@code revoked}.
         *
         * @param countedOnUntilNanos {@code revokedNanos}, or the earlier moment the node's listener was told the
         *        lease was lost
         * @param lost whether the lease was reported lost before {@code revoked}
         */
        void revoked(long token, long grantedNanos, long revokedNanos, long countedOnUntilNanos, boolean lost);
    }

    private final LockLoop.LostLeases lost;

    private final Sink sink;

    /** The listener's own choices (the campaign's thread), apart from the yielder's. */
    private final Random listenerRandom;

    private final Random yieldRandom;

    private final Thread yielder;

    private volatile @Nullable Leadership leadership;

    private @Nullable LockHandle lease;

    private long grantedNanos;

    private volatile boolean closed;

    /**
     * Guards {@link #lease}, {@link #grantedNanos} and {@link #revokedUnbegun} and orders the sink's calls: a term is
     * reported begun before it is reported ended. ({@code revoked} runs on the candidate's thread and may come while
     * {@code granted} runs: a term once was reported ended, then begun again, then cut by a kill.)
     */
    private final Object terms = new Object();

    /** {@code revoked} came before {@code granted} recorded its term: the worker never counts on that term. */
    private boolean revokedUnbegun;

    LeadershipWorker(long seed, LockLoop.LostLeases lost, Sink sink) {
        this.lost = lost;
        this.sink = sink;
        this.listenerRandom = new Random(seed);
        this.yieldRandom = new Random(seed * 17 + 3);
        this.yielder = new Thread(this::yieldNowAndThen, "campaign-yielder");
        this.yielder.setDaemon(true);
    }

    /** Starts campaigning on that service. */
    void start(LockService service) {
        leadership = service.campaign(GROUP, this);
        yielder.start();
    }

    @Override
    public void granted(String group, LockHandle granted) {
        synchronized (terms) {
            if (revokedUnbegun) {
                revokedUnbegun = false;
                return; // told revoked already: as an application would, the worker does not lead
            }
            long now = System.nanoTime();
            lease = granted;
            grantedNanos = now;
            sink.granted(granted.fencingToken(), now);
        }
        if (listenerRandom.nextInt(4) == 0) {
            // The leader's first work, done inline: the behaviour under test (revoked must not wait for it).
            sleep(Duration.ofMillis(200 + listenerRandom.nextInt(1800)));
        }
    }

    @Override
    public void revoked(String group) {
        synchronized (terms) {
            long now = System.nanoTime();
            LockHandle ended = lease;
            lease = null;
            if (ended == null) {
                // The library tells revoked only after granted began: this term's granted has not recorded it yet.
                revokedUnbegun = true;
                return;
            }
            long lostAt = lost.reportedAt(ended);
            sink.revoked(ended.fencingToken(), grantedNanos, now, Math.min(now, lostAt), lostAt <= now);
            lost.forget(ended);
        }
    }

    /** Gives the leadership up now and then, so that terms follow each other also without faults. */
    private void yieldNowAndThen() {
        while (!closed) {
            sleep(Duration.ofMillis(300 + yieldRandom.nextInt(1200)));
            Leadership current = leadership;
            if (!closed && current != null && current.isLeader()) {
                current.yieldLeadership();
            }
        }
    }

    /** Think time and inline work: the sleep is the behaviour. */
    private static void sleep(Duration duration) {
        try {
            TimeUnit.MILLISECONDS.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops yielding and closes the candidate (a leader is told {@code revoked} and releases). */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        yielder.interrupt();
        yielder.join(TimeUnit.SECONDS.toMillis(5));
        Leadership current = leadership;
        if (current != null) {
            current.close();
        }
    }
}
