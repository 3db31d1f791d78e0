package dev.distlock.memcached;

import java.util.UUID;

import com.spotify.folsom.AsciiMemcacheClient;
import com.spotify.folsom.MemcacheClientBuilder;
import com.spotify.folsom.MemcacheStatus;
import dev.distlock.test.support.RawCycle;

/**
 * Memcached's raw cycle: {@code add} (stored only where the key is absent) to take, {@code delete} to give back, a
 * waiter polls. Each node has a Folsom ascii client of its own, built as the Memcached store builds its client.
 */
final class MemcachedRawCycle implements RawCycle {

    private static final int TIMEOUT_MILLIS = 2_000;

    private final String address;

    /** @param address the server, host:port */
    MemcachedRawCycle(String address) {
        this.address = address;
    }

    @Override
    public String recipe() {
        return "`add` + `delete`; waiters poll (Folsom ascii, one client per node)";
    }

    @Override
    public Node node() throws Exception {
        int colon = address.lastIndexOf(':');
        AsciiMemcacheClient<String> client = MemcacheClientBuilder.newStringClient()
                .withAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))
                .withRequestTimeoutMillis(TIMEOUT_MILLIS).withConnectionTimeoutMillis(TIMEOUT_MILLIS)
                .withRetry(false).withReplyExecutor(null).connectAscii();
        client.connectFuture().toCompletableFuture().get();
        int ttlSeconds = (int) (LEASE_MILLIS / 1000);
        return new Node() {
            @Override
            public Held acquire(String name) throws Exception {
                String token = UUID.randomUUID().toString();
                while (client.add(name, token, ttlSeconds).toCompletableFuture().get() != MemcacheStatus.OK) {
                    RawCycle.backOff();
                }
                return () -> client.delete(name).toCompletableFuture().get();
            }

            @Override
            public void close() {
                client.shutdown();
            }
        };
    }
}
