package dev.distlock.redis.fencing;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import dev.distlock.fencing.FencingTokens;
import dev.distlock.fencing.StaleTokenException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.HashOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Guarded writes to Redis values: each value is kept with the highest fencing token that wrote it, and a write
 * carrying a lower token changes nothing and throws {@link StaleTokenException}. So a holder whose lock was lost (a
 * long pause, a partition) cannot overwrite what a newer holder wrote, even though it still believes it holds the
 * lock.
 * <p>
 * A value lives in a hash at its key, with two fields: {@code value} and {@code fence} (the token, in decimal). One
 * script compares and writes, so no other client's write comes in between; an equal token passes (a holder writes
 * several times under one lock). The tokens are compared as decimal numbers of any size, never as Lua's doubles.
 * Read the value with {@link #get(String)} (or {@code HGET key value}). The token is the current lock scope's
 * ({@link FencingTokens#current()}) unless one is passed.
 * <p>
 * {@link #delete(String) delete} removes the value and keeps the token, so a stale holder cannot write the value
 * back; the fence is forgotten only with the key itself ({@code DEL}, {@code EXPIRE}), after which any token is
 * accepted again. With replication the usual Redis caveat applies: a failover to a replica that missed the last
 * writes forgets their tokens too.
 */
public final class FencedRedis {

    /** The hash field that keeps the value. */
    public static final String VALUE_FIELD = "value";

    /** The hash field that keeps the highest token that wrote the value. */
    public static final String FENCE_FIELD = "fence";

    // KEYS[1] the hash; ARGV[1] the token (decimal digits); ARGV[2] the value, absent to delete it. Answers the
    // token the hash holds afterwards: the caller's when written, a higher one when refused. Tokens are compared as
    // digit strings (longer is larger), since Lua's numbers are doubles and lose digits beyond 2^53.
    private static final RedisScript<String> WRITE = RedisScript.of("""
            local stored = redis.call('HGET', KEYS[1], 'fence')
            if stored and (#stored > #ARGV[1] or (#stored == #ARGV[1] and stored > ARGV[1])) then
                return stored
            end
            if #ARGV > 1 then
                redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
            else
                redis.call('HSET', KEYS[1], 'fence', ARGV[1])
                redis.call('HDEL', KEYS[1], 'value')
            end
            return ARGV[1]
            """, String.class);

    private final StringRedisTemplate redis;

    /**
     * @param redis a template with string keys and values (Spring Boot configures one)
     */
    public FencedRedis(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /**
     * @param connectionFactory the Redis connections
     * @return guarded writes over them
     */
    public static FencedRedis of(RedisConnectionFactory connectionFactory) {
        return new FencedRedis(new StringRedisTemplate(connectionFactory));
    }

    /**
     * Writes the value with the current lock scope's fencing token, unless a newer holder already wrote the key.
     *
     * @param key the key
     * @param value the value
     * @throws StaleTokenException when the key holds a higher token (nothing was written)
     * @throws IllegalStateException outside a lock scope (pass the token instead)
     */
    public void set(String key, String value) {
        set(FencingTokens.current(), key, value);
    }

    /**
     * Writes the value with the given fencing token, unless a newer holder already wrote the key.
     *
     * @param token the fencing token of the caller's lock ({@code LockHandle.fencingToken()}), not negative
     * @param key the key
     * @param value the value
     * @throws StaleTokenException when the key holds a higher token (nothing was written)
     */
    public void set(long token, String key, String value) {
        write(token, key, value);
    }

    /**
     * Removes the value with the current lock scope's fencing token and keeps the token, unless a newer holder
     * already wrote the key.
     *
     * @param key the key
     * @throws StaleTokenException when the key holds a higher token (nothing was removed)
     * @throws IllegalStateException outside a lock scope (pass the token instead)
     */
    public void delete(String key) {
        delete(FencingTokens.current(), key);
    }

    /**
     * Removes the value with the given fencing token and keeps the token, unless a newer holder already wrote the
     * key.
     *
     * @param token the fencing token of the caller's lock, not negative
     * @param key the key
     * @throws StaleTokenException when the key holds a higher token (nothing was removed)
     */
    public void delete(long token, String key) {
        write(token, key, null);
    }

    /**
     * @param key the key
     * @return the value, if one is written
     */
    public Optional<String> get(String key) {
        return Optional.ofNullable(hash().get(key, VALUE_FIELD));
    }

    /**
     * @param key the key
     * @return the highest fencing token that wrote (or deleted) the value, if any did
     */
    public OptionalLong fence(String key) {
        String fence = hash().get(key, FENCE_FIELD);
        return (fence != null) ? OptionalLong.of(Long.parseLong(fence)) : OptionalLong.empty();
    }

    private void write(long token, String key, @Nullable String value) {
        if (token < 0) {
            throw new IllegalArgumentException("A fencing token is not negative, was " + token);
        }
        String digits = Long.toString(token);
        List<String> keys = List.of(key);
        String stored = (value != null) ? redis.execute(WRITE, keys, digits, value)
                : redis.execute(WRITE, keys, digits);
        if (stored == null) {
            throw new IllegalStateException("Redis gave no answer to the guarded write of key " + key);
        }
        if (!stored.equals(digits)) {
            throw new StaleTokenException("Redis key " + key, token, Long.parseLong(stored));
        }
    }

    private HashOperations<String, String, String> hash() {
        return redis.opsForHash();
    }
}
