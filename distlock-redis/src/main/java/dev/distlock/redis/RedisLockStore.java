package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.HandsOver;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis {@link LockStore}, on any Spring Data Redis connection factory (so {@code spring.data.redis.*} applies:
 * standalone, Sentinel, Cluster, password, ACL user, TLS).
 * <ul>
 * <li>An attempt is one {@code EVALSHA} of {@code acquire.lua}: ownership, lease and fencing token in one atomic
 * step; a refused caller that will wait is queued in arrival order. A release is one owner-checked {@code EVALSHA}
 * of {@code release.lua}; when someone waits it hands the lock to the longest-waiting one with that waiter's fencing
 * token, for {@value #HANDOFF_WINDOW_MILLIS} ms, and publishes that on the release channel ({@link ReleaseNotifications}):
 * the waiter starts at once and its next attempt, sent meanwhile, confirms the lock with the full lease. A cancel is
 * the same script undoing whatever the request holds or registered, and a force release the same script without the
 * owner check.</li>
 * <li>Permits ({@link StoreTraits#permits()}): the lock key says how many ({@code #<permits>:<last token>}), the
 * holders are the readers key's members with their lease ends, their tokens in the permits key; a release reserves
 * a freed permit as it does a lock. Another number of permits is refused ({@link dev.distlock.LockException}).</li>
 * <li>The owner refers to the holder identity, kept once per instance ({@link HolderKeys}). Renewals go out in one
 * call per lease time (and Cluster slot) ({@link RedisRenewals}).</li>
 * <li>Replica acknowledgement ({@link MinReplicas}, {@code auto} by default): on a master with replicas, an acquire
 * succeeds, and a renewal counts, only once a replica acknowledged the write ({@code WAIT} on the write's own
 * connection, {@link RedisNode}); a master without replicas costs nothing more. An acquire may then take
 * {@code distlock.replication.timeout} longer ({@link StoreTraits#answerAllowance()}).</li>
 * <li>Every answer is a future of the client's; the engine bounds the wait and undoes a late attempt.</li>
 * </ul>
 */
public class RedisLockStore implements LockStore, HandsOver {

    /** How long a released lock stays reserved for a waiter: a notification and a round trip on a busy machine. */
    static final long HANDOFF_WINDOW_MILLIS = 100;

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            RedisLockStore.class.getClassLoader());

    /** How long a Redlock master keeps a released token (or the lease if shorter): far above NTP's clock skew. */
    static final long KEPT_TOKEN_MILLIS = 1000;

    private static final byte[] HANDOFF_WINDOW = LuaScript.arg(HANDOFF_WINDOW_MILLIS);

    private static final byte[] NO_OWNER = new byte[0]; // a force release's owner argument: it checks no owner

    private final RedisLockConfig config;

    private final RedisRunner runner;

    private final RefusedRequests refused = new RefusedRequests();

    private final HolderKeys holders;

    /** Set by the engine before {@link #start}; absent for a store nobody queues on (a quorum's node). */
    private volatile @Nullable HandOverEvents handOvers;

    /**
     * Where acquires and cancels go: the same runner, or with replica acknowledgement one of their own, so that a
     * {@code WAIT} blocks no renewal or release behind it.
     */
    private final RedisRunner acquires;

    private final ReleaseNotifications notifications;

    private final RedisRenewals renewals;

    /** Whether lock writes wait for replicas ({@code distlock.replication.min-replicas} not 0, on Lettuce). */
    private final boolean acknowledging;

    /**
     * @param connectionFactory the application's connection factory ({@code spring.data.redis.*})
     * @param config the settings
     */
    public RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockConfig config) {
        this.config = config;
        boolean lettuce = LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
        MinReplicas minReplicas = config.minReplicas();
        ReplicaCountLog.checkClient(minReplicas, lettuce, connectionFactory.getClass().getSimpleName());
        this.acknowledging = lettuce && !minReplicas.isOff();
        ReplicaCountLog replicaLog = new ReplicaCountLog();
        this.runner = lettuce ? new LettuceRunner((LettuceConnectionFactory) connectionFactory,
                config.commandTimeout(), replicaLog, config.batchedScripts())
                : new ConnectionRunner(connectionFactory, config.commandTimeout());
        this.acquires = !acknowledging ? runner : new LettuceRunner((LettuceConnectionFactory) connectionFactory,
                config.commandTimeout(), replicaLog, config.batchedScripts());
        this.notifications = ReleaseNotifications.of(connectionFactory, lettuce, config, HANDOFF_WINDOW_MILLIS,
                this::handOverUsable);
        this.holders = new HolderKeys(runner, config.keyPrefix());
        this.renewals = new RedisRenewals(runner, config, acknowledging, holders);
    }

    /** @return the settings */
    public RedisLockConfig config() {
        return config;
    }

    @Override
    public void startHandOvers(HandOverEvents events) {
        handOvers = events;
    }

    /**
     * Checks that the Redis user may use the release channel (a Redis 7 ACL user has no channel rights unless
     * granted: every contended release would fail), then subscribes to it. Redis being unreachable does not fail
     * the start: locking then fails closed per call until it is back.
     *
     * @throws IllegalStateException when the user lacks the channel permission, naming it
     */
    @Override
    public void start(StoreEvents events) {
        notifications.checkPermission(runner, config.commandTimeout());
        notifications.start(events, handOvers);
    }

    /** @return whether release notifications are subscribed (for tests) */
    boolean isSubscribed() {
        return notifications.isSubscribed();
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        return sent(request, waiting, ScriptMarker.attempt(refused.refusedBefore(request)));
    }

    /** {@code acquire.lua} with {@link ScriptMarker#CONFIRM}: after the request's release it grants nothing. */
    @Override
    public CompletionStage<Attempt> confirm(LockRequest request) {
        return sent(request, Waiting.LAST_TRY, ScriptMarker.CONFIRM);
    }

    /** Sends {@code acquire.lua} once the holder can be described, and notes a refusal. */
    private CompletableFuture<Attempt> sent(LockRequest request, Waiting waiting, ScriptMarker kind) {
        CompletableFuture<Attempt> sent = holders.afterIdentity(request, owner -> send(request, owner, waiting, kind));
        return sent.whenComplete((answer, error) -> {
            if (answer != null) {
                refused.answered(request, waiting, answer);
            }
        });
    }

    private CompletableFuture<Attempt> send(LockRequest request, byte[] owner, Waiting waiting, ScriptMarker kind) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        byte[] lease = LuaScript.arg(request.leaseMillis());
        byte[] wait = LuaScript.arg(waiting.remaining().toMillis());
        byte[] mode = ScriptMarker.mode(request).wire();
        // ARGV[6] (permits) only for permits or before a Redlock master's ARGV[7]: no more than the script reads.
        byte[][] args = config.redlockMaster() ? new byte[][] { owner, lease, wait, kind.wire(), mode,
                LuaScript.arg(request.permits()), ScriptMarker.POLLED.wire() }
                : (request.mode() instanceof LockMode.Permits)
                        ? new byte[][] { owner, lease, wait, kind.wire(), mode, LuaScript.arg(request.permits()) }
                        : new byte[][] { owner, lease, wait, kind.wire(), mode };
        if (!acknowledging) {
            return acquires.eval(LuaScript.ACQUIRE, keys.of(request), args)
                    .handle((reply, error) -> AcquireReplies.attempt(request, reply, error));
        }
        return AcquireReplies.composeNow(acquires.node(keys.lock), node -> AcquireReplies.composeNow(
                node.onlineReplicas(),
                online -> attemptAcknowledged(request, node, keys, args, config.minReplicas().required(online))));
    }

    /**
     * An acquire whose write must reach replicas: the script and, when the master has replicas to wait for, a
     * {@code WAIT} right behind it (same round trip) on the master's own connection. Fails with
     * {@link LockUnavailableException} unless enough replicas acknowledged a grant: never a lock that exists only on
     * the master (the engine then undoes it).
     */
    private CompletableFuture<Attempt> attemptAcknowledged(LockRequest request, RedisNode node, LockKeys keys,
            byte[][] args, int required) {
        CompletableFuture<Attempt> reply = node.eval(LuaScript.ACQUIRE, keys.of(request), args)
                .handle((value, error) -> AcquireReplies.attempt(request, value, error));
        if (required == 0) {
            return reply;
        }
        CompletableFuture<Long> acknowledged = node.waitForReplicas(required, config.replicationTimeout().toMillis());
        return reply.thenCompose(attempt -> attempt instanceof Attempt.Busy ? reply : acknowledged.thenApply(replicas -> {
            if (replicas < required) {
                throw AcquireReplies.unacknowledged(request, replicas, required, config);
            }
            return attempt;
        }));
    }

    /**
     * Whether a waiter may start on a hand-over before its confirmation answers: always, unless lock writes must
     * reach replicas on the name's master (a grant counts only once they did, and the confirmation is the write that
     * waits for them). Asked on the subscriber's thread: what is not known yet without a round trip counts as no.
     */
    private boolean handOverUsable(String name) {
        if (!acknowledging) {
            return true;
        }
        CompletableFuture<RedisNode> node = acquires.node(LockKeys.of(config.keyPrefix(), name).lock);
        if (!node.isDone() || node.isCompletedExceptionally()) {
            return false;
        }
        CompletableFuture<Integer> online = node.join().onlineReplicas();
        return online.isDone() && !online.isCompletedExceptionally()
                && config.minReplicas().required(online.join()) == 0;
    }

    /** Expiring leases, clock tokens ({@code acquire.lua}), permits; replica acknowledgement takes longer. */
    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING, StoreTraits.TokenSource.CLOCK).withPermits()
                .withAnswerAllowance(acknowledging ? config.replicationTimeout() : Duration.ZERO);
    }

    /** Undoes whatever the request holds or registered, on the acquire path (after anything sent there before). */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        refused.cancelled(request);
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        return acquires.eval(LuaScript.RELEASE, keys.of(request), holders.owner(request),
                notifications.channel(keys), name(request), HANDOFF_WINDOW, ScriptMarker.CANCEL.wire())
                .thenApply(reply -> null);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        ScriptMarker mode = ScriptMarker.mode(request);
        byte[] owner = holders.owner(request);
        byte[] token = LuaScript.arg(lease.fencingToken());
        byte[] channel = notifications.channel(keys);
        // Only a Redlock master keeps the released token (release.lua's ARGV[7]): a second, or the lease when shorter.
        CompletableFuture<Object> reply = config.redlockMaster() && mode == ScriptMarker.EXCLUSIVE
                ? runner.eval(LuaScript.RELEASE, keys.of(request), owner, channel, name(request), HANDOFF_WINDOW,
                        mode.wire(), token, LuaScript.arg(Math.min(request.leaseMillis(), KEPT_TOKEN_MILLIS)))
                : runner.eval(LuaScript.RELEASE, keys.of(request), owner, channel, name(request), HANDOFF_WINDOW,
                        mode.wire(), token);
        return reply.thenApply(released -> (Long) released == 1 ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED);
    }

    /** The release script without the owner check; the next holder's token follows the server clock as ever. */
    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), name);
        return runner.eval(LuaScript.RELEASE, keys.all(), NO_OWNER, notifications.channel(keys),
                name.getBytes(StandardCharsets.UTF_8), HANDOFF_WINDOW, ScriptMarker.FORCE.wire())
                .thenApply(reply -> (Long) reply == 1);
    }

    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return RedisDescriptions.describe(runner, config.keyPrefix(), name);
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return renewals.renew(leases);
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        return RedisHealth.check(runner, notifications);
    }

    private static byte[] name(LockRequest request) {
        return request.name().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        holders.close(config.commandTimeout());
        notifications.close();
        runner.close();
        acquires.close();
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + config.keyPrefix() + "]";
    }
}
