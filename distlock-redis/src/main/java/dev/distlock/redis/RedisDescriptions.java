package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockInfo;

/**
 * Who holds a lock in Redis ({@link dev.distlock.spi.LockStore#describe}): one read-only {@code EVALSHA} of
 * {@code describe.lua} over the name's keys, then, for the holder identity, the holder key that the owner's reference
 * names ({@link HolderKeys}); the waiters are the waiter list's members.
 */
final class RedisDescriptions {

    static final LuaScript DESCRIBE = LuaScript.load("describe.lua", true);

    private RedisDescriptions() {
    }

    /**
     * @param runner where the script goes
     * @param keyPrefix {@code distlock.key-prefix}
     * @param name the lock name
     * @return the holder, or empty when the name is free
     */
    static CompletableFuture<Optional<LockInfo>> describe(RedisRunner runner, String keyPrefix, String name) {
        return runner.eval(DESCRIBE, LockKeys.of(keyPrefix, name).all()).thenCompose(reply -> {
            // {holder, fencing token, lease remaining in ms, waiters}, or an empty list when free.
            List<?> values = (List<?>) reply;
            if (values == null || values.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            return HolderKeys.identity(runner, keyPrefix, text(values.get(0))).thenApply(holder -> Optional.of(
                    new LockInfo(name, holder, Long.parseLong(text(values.get(1))),
                            Duration.ofMillis(Long.parseLong(text(values.get(2)))),
                            Integer.valueOf(text(values.get(3))))));
        });
    }

    /** A bulk reply arrives as bytes, an integer reply as a number, whichever client runs the script. */
    static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }
}
