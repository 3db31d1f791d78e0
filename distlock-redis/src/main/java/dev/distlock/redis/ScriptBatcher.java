package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Sends the lock scripts of one connection (standalone or Sentinel) like a group commit, when
 * {@code distlock.redis.batched-scripts} is on: one call is in flight at a time, and the acquire and release calls
 * that queued meanwhile go out together as one call of {@code batch.lua} ({@link LuaScript#BATCH}): one command to
 * encode, send and answer on the client where there were dozens. Nothing waits for a batch to fill: a call made
 * while none is in flight goes out at once, alone, as the plain script.
 * <p>
 * One call in flight is what keeps the order: the queue keeps the order calls were made in, a batch runs its calls in
 * that order, and the next goes out only once the last answered, whichever thread sends it (a send from the client's
 * I/O thread could otherwise overtake one still on its way from another thread). So a cancel still reaches Redis after
 * the attempt it undoes, and a {@code WAIT} after the writes it covers. A batch holds each lock key at most once (the
 * next call of a name waits for the next batch), so that a name's calls read the server clock in separate script
 * calls, as when sent alone. Other scripts (renewals, descriptions) go out alone, in their turn.
 * <p>
 * {@code WAIT} goes through the same queue, once per batch, behind the batch it follows: it covers every write sent
 * on the connection before it, so moving it behind calls queued later never acknowledges less.
 * <p>
 * The price is the pipeline: with few callers, calls that could have been in flight together wait for the one in
 * flight (measured in docs/engineering/benchmarks.md: fewer cycles at 8 threads, more at 64), hence off by default.
 */
final class ScriptBatcher {

    /** The most calls one batch holds: Redis runs a script to its end, other clients wait meanwhile. */
    static final int MAX_CALLS = 64;

    private static final byte[] ACQUIRE = { 'a' };

    private static final byte[] RELEASE = { 'r' };

    private final RedisClusterAsyncCommands<byte[], byte[]> redis;

    private final CommandWatch watch;

    private final ArrayDeque<Call> queue = new ArrayDeque<>();

    private boolean inFlight;

    /**
     * @param redis the connection
     * @param watch watches every command sent, as the connection's own
     */
    ScriptBatcher(RedisClusterAsyncCommands<byte[], byte[]> redis, CommandWatch watch) {
        this.redis = redis;
        this.watch = watch;
    }

    /** @return whether calls of the script may share a batch: {@code acquire.lua} and {@code release.lua} */
    private static boolean batches(LuaScript script) {
        return script == LuaScript.ACQUIRE || script == LuaScript.RELEASE;
    }

    /**
     * @param script the script: {@link LuaScript#ACQUIRE} and {@link LuaScript#RELEASE} share batches, others go alone
     * @param keys its keys, the lock key first
     * @param args its arguments
     * @return its reply
     */
    CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[][] args) {
        Eval call = new Eval(script, keys, args, new CompletableFuture<>());
        submit(call);
        return call.reply;
    }

    /**
     * @param replicas how many replicas
     * @param timeoutMillis how long Redis waits at most
     * @return how many acknowledged the writes sent before it on this connection
     */
    CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
        Wait call = new Wait(replicas, timeoutMillis, new CompletableFuture<>());
        submit(call);
        return call.reply;
    }

    private void submit(Call call) {
        synchronized (this) {
            queue.addLast(call);
            if (inFlight) {
                return;
            }
            inFlight = true;
        }
        sendQueued();
    }

    /**
     * Sends what queued, and again as soon as the replies are in, until the queue is empty. The next batch goes out
     * before the replies are handed to their callers, so that Redis runs it while the callers' continuations run
     * here. A loop, not a recursion, when replies come at once (a connection that fails them at once).
     */
    private void sendQueued() {
        while (true) {
            Batch batch;
            synchronized (this) {
                batch = take();
                if (batch == null) {
                    inFlight = false;
                    return;
                }
            }
            CompletableFuture<Void> replies = batch.send();
            if (!replies.isDone()) {
                replies.whenComplete((done, error) -> {
                    sendQueued();
                    batch.answer();
                });
                return;
            }
            batch.answer();
        }
    }

    private @Nullable Batch take() {
        List<Eval> evals = new ArrayList<>();
        List<Wait> waits = new ArrayList<>();
        Set<ByteBuffer> names = new HashSet<>();
        for (Call next = queue.peekFirst(); next != null && evals.size() < MAX_CALLS; next = queue.peekFirst()) {
            if (next instanceof Eval eval && !batches(eval.script)) {
                if (evals.isEmpty() && waits.isEmpty()) {
                    queue.pollFirst();
                    evals.add(eval); // alone
                }
                break;
            }
            if (next instanceof Eval eval && !names.add(ByteBuffer.wrap(eval.keys[0]))) {
                break;
            }
            queue.pollFirst();
            if (next instanceof Eval eval) {
                evals.add(eval);
            }
            else {
                waits.add((Wait) next);
            }
        }
        return evals.isEmpty() && waits.isEmpty() ? null : new Batch(evals, waits);
    }

    /** The calls sent together: their scripts in one call, then one {@code WAIT} for all that asked for one. */
    private final class Batch {

        private final List<Eval> evals;

        private final List<Wait> waits;

        private CompletableFuture<Object> scripts = CompletableFuture.completedFuture(null);

        private CompletableFuture<Long> acknowledged = CompletableFuture.completedFuture(0L);

        Batch(List<Eval> evals, List<Wait> waits) {
            this.evals = evals;
            this.waits = waits;
        }

        /** @return completes, never exceptionally, once every reply is in */
        CompletableFuture<Void> send() {
            try {
                if (evals.size() == 1) {
                    Eval one = evals.get(0);
                    scripts = watch.watch(eval(redis, one.script, one.keys, one.args));
                }
                else if (!evals.isEmpty()) {
                    scripts = watch.watch(eval(redis, LuaScript.BATCH, keys(evals), args(evals)));
                }
                if (!waits.isEmpty()) {
                    acknowledged = watch.watch(redis.waitForReplication(
                            waits.stream().mapToInt(Wait::replicas).max().orElseThrow(),
                            waits.stream().mapToLong(Wait::timeoutMillis).max().orElseThrow()).toCompletableFuture());
                }
            }
            catch (RuntimeException ex) { // a client that throws instead of failing the future
                scripts = CompletableFuture.failedFuture(ex);
                acknowledged = CompletableFuture.failedFuture(ex);
            }
            return CompletableFuture.allOf(scripts.exceptionally(error -> null),
                    acknowledged.exceptionally(error -> 0L));
        }

        /** Hands each call its reply; every reply is in. */
        void answer() {
            Throwable failed = failure(scripts);
            for (int i = 0; i < evals.size(); i++) {
                CompletableFuture<Object> reply = evals.get(i).reply;
                if (failed != null) {
                    reply.completeExceptionally(failed);
                    continue;
                }
                Object one = evals.size() == 1 ? scripts.join() : ((List<?>) scripts.join()).get(i);
                if (one instanceof byte[] message) {
                    reply.completeExceptionally(new RedisCommandExecutionException(
                            new String(message, StandardCharsets.UTF_8)));
                }
                else {
                    reply.complete(one);
                }
            }
            Throwable notAcknowledged = failure(acknowledged);
            for (Wait wait : waits) {
                if (notAcknowledged != null) {
                    wait.reply.completeExceptionally(notAcknowledged);
                }
                else {
                    wait.reply.complete(acknowledged.join());
                }
            }
        }
    }

    private static @Nullable Throwable failure(CompletableFuture<?> done) {
        try {
            done.join();
            return null;
        }
        catch (CompletionException ex) {
            return ex.getCause() != null ? ex.getCause() : ex;
        }
        catch (CancellationException ex) {
            return ex;
        }
    }

    private static byte[][] keys(List<Eval> evals) {
        return evals.stream().flatMap(eval -> Arrays.stream(eval.keys)).toArray(byte[][]::new);
    }

    private static byte[][] args(List<Eval> evals) {
        List<byte[]> args = new ArrayList<>();
        args.add(LuaScript.arg(evals.size()));
        for (Eval eval : evals) {
            args.add(eval.script == LuaScript.ACQUIRE ? ACQUIRE : RELEASE);
            args.add(LuaScript.arg(eval.keys.length));
            args.add(LuaScript.arg(eval.args.length));
            args.addAll(List.of(eval.args));
        }
        return args.toArray(byte[][]::new);
    }

    /**
     * {@code EVALSHA}, falling back to {@code EVAL} when the server does not know the script (within the future).
     *
     * @param redis the connection
     * @param script the script
     * @param keys its keys
     * @param args its arguments
     * @return its reply: a {@code Long}, or a {@code List} for a multi-reply script
     */
    static CompletableFuture<Object> eval(RedisClusterAsyncCommands<byte[], byte[]> redis, LuaScript script,
            byte[][] keys, byte[][] args) {
        ScriptOutputType output = script.multiReply() ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        return redis.<Object>evalsha(script.sha1(), output, keys, args).toCompletableFuture()
                .exceptionallyCompose(ex -> LuaScript.isNoScript(ex)
                        ? redis.<Object>eval(script.body(), output, keys, args).toCompletableFuture()
                        : CompletableFuture.failedFuture(ex));
    }

    /** A call waiting in the queue. */
    private sealed interface Call permits Eval, Wait {
    }

    private record Eval(LuaScript script, byte[][] keys, byte[][] args, CompletableFuture<Object> reply)
            implements Call {
    }

    private record Wait(int replicas, long timeoutMillis, CompletableFuture<Long> reply) implements Call {
    }
}
