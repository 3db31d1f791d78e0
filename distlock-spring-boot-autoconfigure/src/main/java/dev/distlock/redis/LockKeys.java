package dev.distlock.redis;

import java.nio.charset.StandardCharsets;

/**
 * The Redis keys of one lock name. All share the hash tag {@code {name}}, so a lock's keys live in one Redis
 * Cluster slot and its scripts can touch them together; every key starts with the configured prefix and a colon.
 */
final class LockKeys {

    final byte[] lock;

    final byte[] waiters;

    final byte[] readers;

    final byte[] writer;

    private LockKeys(String base) {
        this.lock = base.getBytes(StandardCharsets.UTF_8);
        this.waiters = (base + ":waiters").getBytes(StandardCharsets.UTF_8);
        this.readers = (base + ":readers").getBytes(StandardCharsets.UTF_8);
        this.writer = (base + ":writer").getBytes(StandardCharsets.UTF_8);
    }

    static LockKeys of(String prefix, String name) {
        return new LockKeys(prefix + ":{" + name + "}");
    }

    static byte[] channel(String prefix) {
        return (prefix + ":released").getBytes(StandardCharsets.UTF_8);
    }
}
