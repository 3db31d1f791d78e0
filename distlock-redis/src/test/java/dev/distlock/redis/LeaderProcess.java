package dev.distlock.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.LockListener;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A leadership candidate in a JVM of its own, started by {@link LeadershipFailoverTests} through
 * {@link dev.distlock.test.support.HolderJvm}: only separate processes show what a leader killed with SIGKILL does to the
 * election. Arguments: redis port, group, lease in ms.
 * <p>
 * It prints one line per event, flushed at once:
 * <ul>
 * <li>{@code CAMPAIGNING} once the campaign started;</li>
 * <li>{@code GRANTED <fencing token> <epoch µs>} from {@link LeadershipListener#granted};</li>
 * <li>{@code REVOKED <epoch µs>} from {@link LeadershipListener#revoked}, once the leader's work stopped.</li>
 * </ul>
 * The times are wall-clock microseconds since the epoch: the candidates run on one machine, so they read one clock
 * and their times can be compared; microseconds rather than milliseconds, since a hand-over on a local Redis can
 * take about a millisecond and the test checks which came first.
 * <p>
 * Stopping the leader's work takes {@link #STOP_WORK} in {@code revoked}, as stopping a consumer or a scheduler
 * does, and the time is printed when {@code revoked} returns, the moment the old leader's work is over. That makes
 * the order of revoke and release visible from outside: a campaign that released the lease before it told the
 * listener would let the next leader start while this one's work still runs, and the test would see the overlap.
 * A {@code revoked} that only printed would return well before any other candidate could be granted, whatever the
 * order, since the hand-over goes through Redis. It reads commands on its standard input:
 * {@code YIELD} gives the leadership up; the end of the input (the test JVM is gone) closes the campaign and exits.
 */
public final class LeaderProcess {

    /** Printed once the campaign started. */
    public static final String CAMPAIGNING = "CAMPAIGNING";

    /** Printed when this candidate becomes the leader, followed by the fencing token and the time. */
    public static final String GRANTED = "GRANTED ";

    /** Printed when this candidate stops being the leader, followed by the time. */
    public static final String REVOKED = "REVOKED ";

    /** The command that makes the candidate yield its leadership. */
    public static final String YIELD = "YIELD";

    /**
     * How long the leader's work takes to stop in {@code revoked}: several times what a hand-over through a local
     * Redis takes (the release, its notification, the next acquire: tens of ms on a busy machine), so that a
     * release before {@code revoked} would let the next grant come before this one's work ended.
     */
    static final Duration STOP_WORK = Duration.ofMillis(250);

    private LeaderProcess() {
    }

    /**
     * @param args port, group, lease ms
     * @throws IOException when the standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        StoreLockService service = new StoreLockService(new RedisLockStore(factory, LockNodes.redisConfig("proc")),
                LockConfig.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(args[2]))), LockListener.NONE);
        service.start();
        Leadership leadership = service.campaign(args[1], new LeadershipListener() {

            @Override
            public void granted(String group, LockHandle lease) {
                print(GRANTED + lease.fencingToken() + " " + epochMicros());
            }

            @Override
            public void revoked(String group) {
                stopWork();
                // Only now is the leader's work over: what the test compares with the next grant.
                print(REVOKED + epochMicros());
            }
        });
        print(CAMPAIGNING);
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String command = commands.readLine(); command != null; command = commands.readLine()) {
            if (YIELD.equals(command.trim())) {
                leadership.yieldLeadership();
            }
        }
        // The test JVM is gone without killing this one: leave the election rather than linger as an orphan.
        leadership.close();
        service.close();
        factory.destroy();
        System.exit(0);
    }

    /** @return now, in microseconds since the epoch (wall clock, shared by every process on the machine) */
    static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /** Stands for the leader's work stopping: not a wait for anything, the listener's own duration. */
    private static void stopWork() {
        try {
            Thread.sleep(STOP_WORK.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
