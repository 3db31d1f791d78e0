package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

/**
 * Sends the lock path's commands to Redis and answers with futures, never blocking the caller: the engine bounds
 * the wait, and an undo chained on a future goes out strictly after its command. Two implementations: Lettuce's
 * native asynchronous connection (one multiplexed connection, the fast path) and Spring Data Redis' generic
 * connection API for any other client (Jedis), whose blocking calls run on threads of their own.
 */
interface RedisRunner extends AutoCloseable {

    /**
     * Runs a script ({@code EVALSHA}, falling back to {@code EVAL} on {@code NOSCRIPT} within the same future).
     *
     * @param script the script
     * @param keys its keys
     * @param args its arguments
     * @return a {@code Long}, or a {@code List<Long>} for a multi-reply script
     */
    CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args);

    /**
     * @param channel the channel
     * @param message the message
     * @return how many subscribers received it
     */
    CompletableFuture<Long> publish(byte[] channel, byte[] message);

    /**
     * The master serving a key, on the connection that carries its writes, for replica acknowledgement
     * ({@code WAIT} covers only writes sent on its own connection).
     *
     * @param key a lock key
     * @return the master, once the connection is open
     */
    default CompletableFuture<RedisNode> node(byte[] key) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "replica acknowledgement (distlock.replication.min-replicas) needs the Lettuce client"));
    }

    /** @return the reply to {@code PING} */
    CompletableFuture<String> ping();

    /** @return true when Redis Cluster is used, so one script call must not mix hash slots */
    boolean isCluster();

    /** Closes the connections this runner opened. */
    @Override
    void close();
}
