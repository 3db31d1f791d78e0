package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;

/**
 * The Redis keys of one lock name. All share one hash tag, so a lock's keys live in one Redis Cluster slot and its
 * scripts can touch them together; every key starts with the configured prefix and a colon.
 * <p>
 * A name without braces is its own hash tag: {@code <prefix>:{<name>}}. A name with a brace cannot be (Redis would
 * cut the tag at its first {@code '}'}, and a name starting with {@code '}'} would leave an empty tag and spread
 * the keys over slots), so its tag is a hash of the name and the name follows it:
 * {@code <prefix>:{#<hash>}:<name>}. Both forms are distinct for distinct names.
 */
final class LockKeys {

    final byte[] lock;

    final byte[] waiters;

    final byte[] readers;

    final byte[] writer;

    final byte[] permits;

    private static final byte[] WAITERS = ascii(":waiters");

    private static final byte[] READERS = ascii(":readers");

    private static final byte[] WRITER = ascii(":writer");

    private static final byte[] PERMITS = ascii(":permits");

    /** The name is encoded once and each key is the lock key plus its suffix (every acquire and release builds them). */
    private LockKeys(String base) {
        this.lock = base.getBytes(StandardCharsets.UTF_8);
        this.waiters = suffixed(lock, WAITERS);
        this.readers = suffixed(lock, READERS);
        this.writer = suffixed(lock, WRITER);
        this.permits = suffixed(lock, PERMITS);
    }

    private static byte[] suffixed(byte[] key, byte[] suffix) {
        byte[] suffixed = Arrays.copyOf(key, key.length + suffix.length);
        System.arraycopy(suffix, 0, suffixed, key.length, suffix.length);
        return suffixed;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static LockKeys of(String prefix, String name) {
        return new LockKeys(lockKey(prefix, name));
    }

    static String lockKey(String prefix, String name) {
        if (name.indexOf('{') < 0 && name.indexOf('}') < 0) {
            return prefix + ":{" + name + "}";
        }
        return prefix + ":{#" + Integer.toHexString(name.hashCode()) + "}:" + name;
    }

    /** @return all five keys, as the acquire and release scripts take them (a force release may meet permits) */
    byte[][] all() {
        return new byte[][] { lock, waiters, readers, writer, permits };
    }

    /**
     * @param request a request of this lock
     * @return the keys its acquire and release scripts take: the permits key only for a request of permits (the
     *         scripts touch it for permit holders alone), so a lock's calls carry no more than they need
     */
    byte[][] of(LockRequest request) {
        return request.mode() instanceof LockMode.Permits ? all() : new byte[][] { lock, waiters, readers, writer };
    }

    static byte[] channel(String prefix) {
        return (prefix + ":released").getBytes(StandardCharsets.UTF_8);
    }
}
