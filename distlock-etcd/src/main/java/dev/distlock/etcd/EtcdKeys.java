package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.etcd.jetcd.ByteSequence;

/**
 * Where the keys of a lock live: {@code <key-prefix>/<encoded lock name>/<kind>/<request id>}.
 * <ul>
 * <li>The name is percent-encoded for {@code /} and {@code %} only, so no lock's keys lie under another lock's
 * prefix ({@code a} and {@code a/w} stay apart) and names such as {@code stock:42} read as they are.</li>
 * <li>The kind separates writers from readers ({@link Kind}), so that a reader asks for the writers before it
 * alone and a writer for every key before it, each with one range read.</li>
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
        READER("r");

        private final String segment;

        Kind(String segment) {
            this.segment = segment;
        }
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

    /** @return the prefix of the lock's writers' keys */
    ByteSequence writersPrefix(String name) {
        return bytes(lockPath(name) + Kind.WRITER.segment + "/");
    }

    /** @return whether the key is a reader's key of the lock */
    boolean isReader(String name, ByteSequence key) {
        return key.startsWith(bytes(lockPath(name) + Kind.READER.segment + "/"));
    }

    /** @return the key of one request */
    ByteSequence requestKey(String name, Kind kind, String ownerToken) {
        return bytes(lockPath(name) + kind.segment + "/" + requestId(ownerToken));
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
