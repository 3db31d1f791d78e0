package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

/**
 * Sends the lock path's commands to Redis and answers with futures, so that every call can be bounded by the
 * command timeout and an abandoned acquire can be undone strictly after it ran. Two implementations: Lettuce's
 * native asynchronous connection (one multiplexed connection, the fast path) and Spring Data Redis' generic
 * connection API for any other client (Jedis).
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
     * {@code WAIT}: until that many replicas acknowledged the writes sent on this connection so far, to the node
     * that serves the key.
     *
     * @param key a key just written (its node receives the {@code WAIT})
     * @param replicas how many replicas
     * @param timeoutMillis how long Redis waits at most
     * @return how many acknowledged
     */
    CompletableFuture<Long> waitForReplicas(byte[] key, int replicas, long timeoutMillis);

    /** @return the reply to {@code PING} */
    CompletableFuture<String> ping();

    /**
     * A command got no answer within the command timeout; the runner may replace a connection that seems stuck
     * on a master that is gone.
     */
    default void timedOut() {
    }

    /** @return true when Redis Cluster is used, so one script call must not mix hash slots */
    boolean isCluster();

    /** Closes the connections this runner opened. */
    @Override
    void close();
}
