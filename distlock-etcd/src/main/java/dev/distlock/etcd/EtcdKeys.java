package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;

/**
 * Where the keys of a lock live: {@code <key-prefix>/<encoded lock name>/<kind>/<request id>}.
 * <ul>
 * <li>The name is percent-encoded for {@code /} and {@code %} only, so no lock's keys lie under another lock's
 * prefix ({@code a} and {@code a/w} stay apart) and names such as {@code stock:42} read as they are.</li>
 * <li>The kind separates writers from readers ({@link Kind}), so that a reader asks for the writers before it
 * alone and a writer for every key before it, each with one range read. A request of several permits says how
 * many in its kind, {@code p<permits>} ({@code p3}): every caller reads from the name's first key what the name is
 * held with, and the keys of its own line lie in one range ({@link #line}), which one read finds.</li>
 * <li>The request id is a hash of the request's owner token: every attempt, cancel and release of a request finds
 * the same key without the token itself ever being written to etcd, where anyone who may read keys would see
 * it.</li>
 * </ul>
 */
final class EtcdKeys {

    /** The kind of a request's key, the path segment before its id. */
    enum Kind {

        /** An exclusive request ({@code REENTRANT} or {@code WRITE}). */
        WRITER("w"),

        /** A {@code READ} request, shared with other readers. */
        READER("r"),

        /** A request of one of several permits; its segment ends with the number, {@code p3}. */
        PERMIT("p");

        private final String segment;

        Kind(String segment) {
            this.segment = segment;
        }

        /** @return the kind of the request's key */
        static Kind of(LockRequest request) {
            LockMode mode = request.mode();
            return mode instanceof LockMode.Permits ? PERMIT : mode instanceof LockMode.Shared ? READER : WRITER;
        }
    }

    /** Keys from {@code from} (inclusive) to {@code to} (exclusive), in etcd's byte order. */
    record KeyRange(ByteSequence from, ByteSequence to) {
    }

    private final String keyPrefix;

    /**
     * @param keyPrefix {@code distlock.key-prefix}
     */
    EtcdKeys(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /** @return the prefix of every key of the lock, writers and readers */
    ByteSequence lockPrefix(String name) {
        return bytes(lockPath(name));
    }

    /** @return whether the key is a reader's key of the lock */
    boolean isReader(String name, ByteSequence key) {
        return key.startsWith(bytes(lockPath(name) + Kind.READER.segment + "/"));
    }

    /**
     * @param name the lock name
     * @param key one of its keys
     * @return the mode of the key's request, as the key says
     */
    LockMode modeOf(String name, ByteSequence key) {
        int permits = permitsOf(name, key);
        return permits > 1 ? new LockMode.Permits(permits) : isReader(name, key) ? LockMode.SHARED : LockMode.EXCLUSIVE;
    }

    /** @return whether the key is a permit holder's or waiter's key of the lock */
    boolean isPermit(String name, ByteSequence key) {
        return key.startsWith(bytes(lockPath(name) + Kind.PERMIT.segment));
    }

    /** @return the key of one request */
    ByteSequence requestKey(LockRequest request) {
        return bytes(lockPath(request.name()) + segment(request) + "/" + requestId(request.ownerToken()));
    }

    /**
     * The keys of the request's name that may be ahead of it in its line: for {@code n} permits the keys of
     * {@code n} permits ({@code p<n>/}; {@code '0'} is the byte after {@code '/'}, so {@code p3/} and {@code p30/}
     * stay apart); for a writer every reader's and writer's key ({@code r/} to {@code w/}); for a reader the
     * writers' keys. Keys of another number of permits are never in it.
     *
     * @return the range
     */
    KeyRange line(LockRequest request) {
        String lockPath = lockPath(request.name());
        if (request.mode() instanceof LockMode.Permits) {
            String own = lockPath + segment(request);
            return new KeyRange(bytes(own + "/"), bytes(own + "0"));
        }
        String first = (request.mode() instanceof LockMode.Shared) ? Kind.WRITER.segment : Kind.READER.segment;
        return new KeyRange(bytes(lockPath + first + "/"), bytes(lockPath + Kind.WRITER.segment + "0"));
    }

    /**
     * @param name the lock name
     * @param key one of its keys
     * @return the permits the key's request asked for: its number for a permit key, 1 for a reader's or writer's
     */
    int permitsOf(String name, ByteSequence key) {
        String rest = key.toString(StandardCharsets.UTF_8).substring(lockPath(name).length());
        if (!rest.startsWith(Kind.PERMIT.segment)) {
            return 1;
        }
        return Integer.parseInt(rest.substring(Kind.PERMIT.segment.length(), rest.indexOf('/')));
    }

    /**
     * @param key a key under the store's prefix
     * @return the prefix of every key of the key's lock ({@link #lockPrefix}), or {@code null} for a key that is
     *         not a lock key of this layout
     */
    @Nullable ByteSequence lockPrefixOf(ByteSequence key) {
        String path = key.toString(StandardCharsets.UTF_8);
        String store = keyPrefix + "/";
        int nameEnd = path.indexOf('/', store.length()); // the encoded name holds no '/'
        if (!path.startsWith(store) || nameEnd < 0) {
            return null;
        }
        return bytes(path.substring(0, nameEnd + 1));
    }

    private static String segment(LockRequest request) {
        Kind kind = Kind.of(request);
        return kind == Kind.PERMIT ? kind.segment + request.permits() : kind.segment;
    }

    /** @return the prefix of every key of the store; also the key every health check reads (it need not exist) */
    ByteSequence storePrefix() {
        return bytes(keyPrefix + "/");
    }

    private String lockPath(String name) {
        return keyPrefix + "/" + encode(name) + "/";
    }

    /** @return the name with {@code %} and {@code /} percent-encoded */
    static String encode(String name) {
        if (name.indexOf('%') < 0 && name.indexOf('/') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace("/", "%2F");
    }

    /** @return 128 bits of the SHA-256 of the owner token, in hex: unique per request, and not the token */
    static String requestId(String ownerToken) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(ownerToken.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("Every Java platform has SHA-256", ex);
        }
    }

    private static ByteSequence bytes(String key) {
        return ByteSequence.from(key, StandardCharsets.UTF_8);
    }
}
