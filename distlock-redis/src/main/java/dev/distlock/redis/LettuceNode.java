package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RedisNode} on Lettuce: the standalone (or Sentinel-found) master's connection, or on Cluster the
 * connection to one master that Lettuce's slot routing also uses ({@code getConnection(host, port)}). Keeps that
 * master's count of online replicas, refreshed at most every {@value #REFRESH_MILLIS} ms by an {@code INFO
 * replication} that nothing waits for.
 * <p>
 * A master that had a replica online and lists none is logged ({@link ReplicaCountLog}).
 * <p>
 * Behind Sentinel the master is never asked: a monitored master always has replicas to fail over to, and one that
 * lists none is most likely the old master cut off from them (a partition, or frozen and resumed before the
 * Sentinels demote it) — exactly where a lock must not be granted unacknowledged. There it counts as one replica.
 */
final class LettuceNode implements RedisNode {

    /** How old the replica count may get before the next use asks again (without waiting for the answer). */
    static final long REFRESH_MILLIS = 5_000;

    private static final Logger log = LoggerFactory.getLogger(LettuceNode.class);

    private static final Pattern ONLINE_REPLICA = Pattern.compile("(?m)^slave\\d+:.*state=online");

    private static final Pattern SECOND_REPL_OFFSET = Pattern.compile("(?m)^second_repl_offset:(-?\\d+)");

    private final RedisClusterAsyncCommands<byte[], byte[]> redis;

    private final String name;

    private final CommandWatch watch;

    private final Runnable slotMoved;

    private final boolean alwaysReplicated;

    private final ReplicaCountLog replicaLog;

    private final @Nullable ScriptBatcher batcher;

    private volatile @Nullable CompletableFuture<Integer> replicas;

    private volatile long checkedNanos;

    private volatile boolean refreshing;

    private volatile boolean warnedNoInfo;

    /**
     * @param redis the connection to this master
     * @param name how log messages name it
     * @param watch watches every command, as the runner's own
     * @param slotMoved told of a {@code MOVED}/{@code ASK}, so that the slot map is refreshed
     * @param alwaysReplicated true behind Sentinel: counts one replica without asking
     * @param replicaLog told every count asked, to say when a master's replicas are gone or back
     * @param batcher with batched scripts, off Cluster: the connection's batcher, which scripts and {@code WAIT} go
     *        through in order
     */
    LettuceNode(RedisClusterAsyncCommands<byte[], byte[]> redis, String name, CommandWatch watch,
            Runnable slotMoved, boolean alwaysReplicated, ReplicaCountLog replicaLog,
            @Nullable ScriptBatcher batcher) {
        this.batcher = batcher;
        this.alwaysReplicated = alwaysReplicated;
        this.replicaLog = replicaLog;
        this.replicas = alwaysReplicated ? CompletableFuture.completedFuture(1) : null;
        this.redis = redis;
        this.name = name;
        this.watch = watch;
        this.slotMoved = slotMoved;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
        ScriptBatcher batched = batcher;
        if (batched != null) {
            return batched.eval(script, keys, args);
        }
        return watch.watch(ScriptBatcher.eval(redis, script, keys, args))
                .exceptionallyCompose(ex -> CompletableFuture.failedFuture(moved(ex)));
    }

    private Throwable moved(Throwable failure) {
        if (isRedirect(failure)) {
            slotMoved.run();
            return new IllegalStateException("the lock's hash slot is no longer served by " + name
                    + " (it moved during the acquire or renewal), so no replica acknowledgement covers it: "
                    + failure.getMessage(), failure);
        }
        return failure;
    }

    /** @return whether Redis answered that another node serves the slot ({@code MOVED} or {@code ASK}) */
    static boolean isRedirect(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && (message.startsWith("MOVED ") || message.startsWith("ASK "))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
        ScriptBatcher batched = batcher;
        if (batched != null) {
            return batched.waitForReplicas(replicas, timeoutMillis);
        }
        return watch.watch(redis.waitForReplication(replicas, timeoutMillis).toCompletableFuture());
    }

    @Override
    public CompletableFuture<Integer> onlineReplicas() {
        CompletableFuture<Integer> known = replicas;
        if (known == null || known.isCompletedExceptionally()) {
            synchronized (this) {
                known = replicas;
                if (known == null || known.isCompletedExceptionally()) {
                    known = ask();
                    replicas = known;
                }
            }
            return known;
        }
        if (!alwaysReplicated && known.isDone() && !refreshing && System.nanoTime() - checkedNanos > REFRESH_MILLIS * 1_000_000) {
            refresh();
        }
        return known;
    }

    /** Asks again in the background; the last count stays in use until the answer comes. */
    private void refresh() {
        refreshing = true;
        ask().whenComplete((count, error) -> {
            if (error == null) {
                replicas = CompletableFuture.completedFuture(count);
            }
            refreshing = false;
        });
    }

    private CompletableFuture<Integer> ask() {
        checkedNanos = System.nanoTime();
        return watch.watch(redis.info("replication").toCompletableFuture()).handle((info, error) -> {
            if (error == null) {
                int online = onlineReplicas(info);
                replicaLog.observed(name, online, promoted(info));
                return online;
            }
            if (RedisErrors.hasMessage(error, "NOPERM")) {
                // An ACL user without INFO (it is in @dangerous): auto cannot see the replicas. Said once.
                if (!warnedNoInfo) {
                    warnedNoInfo = true;
                    log.warn("The Redis user may not run INFO, so distlock.replication.min-replicas=auto cannot see "
                            + "whether {} has replicas and waits for none; grant +info or set a number", name);
                }
                return 0;
            }
            throw new CompletionException(error);
        });
    }

    /**
     * @param info the reply to {@code INFO replication}
     * @return the replicas listed with {@code state=online} (a frozen replica stays online until the master's
     *         {@code repl-timeout}; one still syncing is not)
     */
    static int onlineReplicas(String info) {
        Matcher online = ONLINE_REPLICA.matcher(info);
        int count = 0;
        while (online.find()) {
            count++;
        }
        return count;
    }

    /**
     * @param info the reply to {@code INFO replication}
     * @return whether the master took over from another (a failover, or {@code REPLICAOF NO ONE}): it keeps the
     *         replication history it had as a replica, {@code second_repl_offset} other than -1
     */
    static boolean promoted(String info) {
        Matcher offset = SECOND_REPL_OFFSET.matcher(info);
        return offset.find() && !"-1".equals(offset.group(1));
    }

    @Override
    public String toString() {
        return name;
    }
}
