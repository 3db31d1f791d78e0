package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

/**
 * One Redis master, reached on one connection: a {@code WAIT} sent here follows, on the server, exactly the writes
 * sent here before it (Redis waits for the calling client's own last write). Replica acknowledgement of lock writes
 * and renewals goes through this, never through a connection that routes or redirects on its own.
 */
interface RedisNode {

    /**
     * Runs a script on this master only. On Cluster, a {@code MOVED} or {@code ASK} reply (the slot is served
     * elsewhere now) fails the future: the script did not run here, and what runs elsewhere would not be covered by
     * a {@code WAIT} sent here.
     *
     * @param script the script
     * @param keys its keys
     * @param args its arguments
     * @return a {@code Long}, or a {@code List<Long>} for a multi-reply script
     */
    CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args);

    /**
     * {@code WAIT}, on the connection of the writes it covers.
     *
     * @param replicas how many replicas
     * @param timeoutMillis how long Redis waits at most
     * @return how many acknowledged the writes sent here so far
     */
    CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis);

    /**
     * The replicas this master lists as online ({@code INFO replication}): asked once, then refreshed in the
     * background now and then, so that the answer costs no round trip once known.
     *
     * @return the count
     */
    CompletableFuture<Integer> onlineReplicas();
}
