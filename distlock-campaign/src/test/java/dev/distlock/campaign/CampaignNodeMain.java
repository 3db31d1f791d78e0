package dev.distlock.campaign;

import dev.distlock.test.support.campaign.CampaignTopologies;
import dev.distlock.test.support.campaign.CampaignTopology;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;

/**
 * A campaign node in a JVM of its own (a {@link dev.distlock.test.support.HolderJvm}): runs {@link LockLoop}s and a
 * {@link LeadershipWorker} on a store given by a spec ({@link CampaignTopology#spec(String)}) and prints every event as a line starting with {@value #PREFIX}, which the test
 * JVM ({@link ChildNode}) turns into the history. Times are {@link System#nanoTime()}: on Linux it is
 * {@code CLOCK_MONOTONIC}, one clock for every process of the machine, so the test JVM can compare them with its
 * own.
 * <p>
 * Arguments: the store spec, the number of worker threads, the seed, the lease time and the fixed lease of the
 * holds that outlast it ({@code CampaignTopology.fixedLeaseMillis()}) in milliseconds.
 */
public final class CampaignNodeMain {

    /** The start of every event line. */
    public static final String PREFIX = "CAMPAIGN ";

    private CampaignNodeMain() {
    }

    /**
     * @param args store spec, threads, seed, lease millis, fixed lease millis
     */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        CampaignTopology.Opened opened = CampaignTopologies.open(args[0]);
        int threads = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        LockLoop.LostLeases lost = new LockLoop.LostLeases();
        StoreLockService service = new StoreLockService(opened.store(),
                Campaign.lockConfig(Long.parseLong(args[3])), CompositeLockListener.of(List.of(lost)));
        service.start();
        LockLoop.Sink sink = new LockLoop.Sink() {
            @Override
            public void began(String name, long token, long calledNanos, long startNanos, long deadlineNanos,
                    boolean fixed) {
                out.println(PREFIX + "BEGIN " + name + " " + token + " " + startNanos + " "
                        + Thread.currentThread().getName() + " " + calledNanos + " " + deadlineNanos);
            }

            @Override
            public void lostNoticed(String name, long token, long countedOnUntilNanos) {
                out.println(PREFIX + "LOST " + name + " " + token + " " + countedOnUntilNanos);
            }

            @Override
            public void ended(String name, long token, long calledNanos, long startNanos, long endNanos,
                    boolean lostLease, long countedOnUntilNanos, boolean fixed) {
                out.println(PREFIX + "END " + name + " " + token + " " + startNanos + " " + endNanos + " " + lostLease
                        + " " + countedOnUntilNanos + " " + fixed + " " + calledNanos);
            }

            @Override
            public void timedOut() {
                out.println(PREFIX + "FAIL " + FailureKind.TIMEOUT);
            }

            @Override
            public void failed(Throwable failure) {
                out.println(PREFIX + "FAIL " + FailureKind.of(failure) + " " + failure.getClass().getName() + ": "
                        + String.valueOf(failure.getMessage()).replace('\n', ' '));
            }
        };
        LeadershipWorker.Sink terms = new LeadershipWorker.Sink() {
            @Override
            public void granted(long token, long grantedNanos) {
                out.println(PREFIX + "TERM_BEGIN " + token + " " + grantedNanos);
            }

            @Override
            public void revoked(long token, long grantedNanos, long revokedNanos, long countedOnUntilNanos,
                    boolean lostLease) {
                out.println(PREFIX + "TERM_END " + token + " " + grantedNanos + " " + revokedNanos + " "
                        + countedOnUntilNanos + " " + lostLease);
            }
        };
        out.println(PREFIX + "READY");
        new LeadershipWorker(seed + 500, lost, terms).start(service);
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(new LockLoop(service, seed + t, () -> false, sink, lost,
                    opened.store().traits().permits(), Duration.ofMillis(Long.parseLong(args[4]))), "worker-" + t);
            worker.start();
        }
        // Runs until the test JVM kills it.
    }
}
