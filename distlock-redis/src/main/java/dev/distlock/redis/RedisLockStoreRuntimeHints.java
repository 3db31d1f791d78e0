package dev.distlock.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) of the Redis stores: the Lua scripts, read as class path resources next to
 * {@link LuaScript}, and the client classes looked up by name to tell Lettuce from Jedis. A native image without
 * them would fail the first acquisition ("Missing script resource") or treat every client as the other one.
 * Lettuce and Spring Data Redis ship the hints of their own reflection. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
final class RedisLockStoreRuntimeHints implements RuntimeHintsRegistrar {

    /** Every script of the stores, as {@link LuaScript#load} resolves it (relative to its package). */
    static final String SCRIPTS = "dev/distlock/redis/*.lua";

    /**
     * Looked up with {@code Class.forName} by {@link RedisLockStore}, {@link RedisErrors} and
     * {@link ConnectionRunner}; a name that is not registered is not found in a native image.
     */
    static final String[] CLIENT_TYPES = { "io.lettuce.core.RedisClient",
            "io.lettuce.core.RedisCommandExecutionException",
            "org.springframework.data.redis.connection.jedis.JedisConnectionFactory", "redis.clients.jedis.Jedis" };

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
        for (String type : CLIENT_TYPES) {
            hints.reflection().registerType(TypeReference.of(type));
        }
    }
}
