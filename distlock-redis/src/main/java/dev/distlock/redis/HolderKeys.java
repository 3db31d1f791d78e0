package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockInfo;
import dev.distlock.spi.LockRequest;

/**
 * The holder identity ({@code distlock.instance-id}) of one store's locks, kept once in Redis instead of in every
 * lock's value: the owner the scripts store is {@code <owner token>|<reference>}, where the reference is 4 base64url
 * characters of the identity's SHA-256, and {@code <prefix>:holder:<reference>} ({@code holder.lua}) names the
 * identity for {@code describe}. With the 16-digit fencing token a held lock's value is then 44 bytes, which Redis
 * keeps as an embedded string: with a million held locks, some 30 MB less than with the identity in each value.
 * <p>
 * The owner of a lease never changes (its renewals and release compare it whole), so the reference is a pure
 * function of the identity; two identities whose references collide share the key and are both described. The key
 * is written when the store first uses an identity and again at most every {@link #REWRITE_NANOS} while it locks,
 * renews or releases, and ends {@link #KEEP_MILLIS} after the last write: a lock held longer than that without any
 * of the instance's calls, or whose key a failover lost, is described with an unknown holder until the next write.
 * Values written by older versions carry the identity itself (base64url, longer than a reference) and are read as
 * before. A closing store drops its identity from the key (its locks are released by then).
 */
final class HolderKeys {

    static final LuaScript HOLDER = LuaScript.load("holder.lua", true);

    /** Characters of a reference: 24 bits, so that token, reference and fencing token fill 44 bytes exactly. */
    static final int REFERENCE_LENGTH = 4;

    /** How long the key names the identity after its last write. */
    static final long KEEP_MILLIS = TimeUnit.HOURS.toMillis(24);

    /** How often an instance in use writes its key again. */
    static final long REWRITE_NANOS = TimeUnit.MINUTES.toNanos(10);

    /** How soon a failed write is tried again. */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisRunner runner;

    private final String keyPrefix;

    /** The identity last used: every request of a lock service has the same one. */
    private volatile @Nullable Holder holder;

    HolderKeys(RedisRunner runner, String keyPrefix) {
        this.runner = runner;
        this.keyPrefix = keyPrefix;
    }

    /**
     * The owner as the scripts store it, writing the identity's key first when it is due (nobody waits for a write;
     * see {@link #afterIdentity} for the first).
     *
     * @param request a request
     * @return its owner argument: {@code <owner token>|<reference>}
     */
    byte[] owner(LockRequest request) {
        return owner(request, current(request));
    }

    /**
     * Sends an acquire once its holder can be described: the first request of an identity goes out when the
     * identity's first write has answered (once per identity and store, a round trip earlier; a failed write does
     * not hold it back, and is tried again). Sending the write first is not enough: a pooled client (Jedis) sends
     * the two on different connections, and on Cluster the holder key lives on another shard.
     *
     * @param request the request
     * @param call sends the request with its owner argument
     * @param <T> the answer
     * @return the call's answer
     */
    <T> CompletableFuture<T> afterIdentity(LockRequest request, Function<byte[], CompletableFuture<T>> call) {
        Holder current = current(request);
        byte[] owner = owner(request, current);
        CompletableFuture<Void> written = current.firstWrite();
        return written.isDone() ? call.apply(owner) : written.thenCompose(ignored -> call.apply(owner));
    }

    private Holder current(LockRequest request) {
        Holder current = holder;
        if (current == null || !current.identity().equals(request.holder())) {
            String reference = reference(request.holder());
            current = new Holder(request.holder(), key(keyPrefix, reference), reference,
                    new AtomicLong(System.nanoTime()), new CompletableFuture<>());
            holder = current;
        }
        long due = current.nextWrite().get();
        long now = System.nanoTime();
        if (now - due >= 0 && current.nextWrite().compareAndSet(due, now + REWRITE_NANOS)) {
            write(current, now);
        }
        return current;
    }

    private static byte[] owner(LockRequest request, Holder current) {
        return (request.ownerToken() + '|' + current.reference()).getBytes(StandardCharsets.US_ASCII);
    }

    private void write(Holder current, long now) {
        runner.eval(HOLDER, new byte[][] { current.key() }, current.identity().getBytes(StandardCharsets.UTF_8),
                LuaScript.arg(KEEP_MILLIS)).whenComplete((reply, error) -> {
                    if (error != null) {
                        current.nextWrite().compareAndSet(now + REWRITE_NANOS, now + RETRY_NANOS);
                    }
                    current.firstWrite().complete(null);
                });
    }

    /**
     * Drops the identity from its key, waiting at most the timeout: the store closes, so nothing refers to it.
     *
     * @param timeout {@code distlock.command-timeout}
     */
    void close(Duration timeout) {
        Holder current = holder;
        if (current != null) {
            try {
                runner.eval(HOLDER, new byte[][] { current.key() },
                        current.identity().getBytes(StandardCharsets.UTF_8), LuaScript.arg(0))
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (ExecutionException | TimeoutException ex) {
                // Left to expire (KEEP_MILLIS): Redis is away, and nothing of this instance will be described.
            }
        }
    }

    /**
     * @param runner where the read goes
     * @param keyPrefix {@code distlock.key-prefix}
     * @param stored what follows the owner token in a stored owner: a reference, an older version's base64url
     *        identity, or nothing
     * @return the holder identity, {@link LockInfo#UNKNOWN_HOLDER} when not known or not readable, or those of a
     *         collision joined by " or "
     */
    static CompletableFuture<String> identity(RedisRunner runner, String keyPrefix, String stored) {
        if (stored.isEmpty()) {
            return CompletableFuture.completedFuture(LockInfo.UNKNOWN_HOLDER);
        }
        if (stored.length() != REFERENCE_LENGTH) {
            return CompletableFuture.completedFuture(LuaScript.holder(stored));
        }
        return runner.eval(HOLDER, new byte[][] { key(keyPrefix, stored) }).handle((reply, error) -> {
            // The lock's own keys were read: a holder key that cannot be (another Cluster shard down, say) leaves
            // the holder unknown, not the description failed.
            List<?> identities = (List<?>) reply;
            return error != null || identities == null || identities.isEmpty() ? LockInfo.UNKNOWN_HOLDER
                    : identities.stream().map(RedisDescriptions::text).sorted().collect(Collectors.joining(" or "));
        });
    }

    /** @return the identity's reference: the first 24 bits of its SHA-256 in base64url */
    static String reference(String identity) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 3));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    static byte[] key(String keyPrefix, String reference) {
        return (keyPrefix + ":holder:" + reference).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * An identity, its key, its reference, when its key is next written ({@link System#nanoTime()}) and whether its
     * first write has answered.
     */
    private record Holder(String identity, byte[] key, String reference, AtomicLong nextWrite,
            CompletableFuture<Void> firstWrite) {
    }
}
