package dev.distlock.benchmarks;

import java.util.List;
import java.util.Optional;

import dev.distlock.test.support.StoreFixture;

/**
 * Finds a started store's raw cycle (workload R). A raw cycle uses the store's client library, so unlike workload S
 * this names the stores it knows; it reaches a fixture's server through what the fixture gives every suite (its
 * nodes' pools, or its crash holder's server arguments), not through a store of distlock's.
 */
final class RawCycles {

    private RawCycles() {
    }

    /**
     * @param store a started store of workload S
     * @param redis the harness's Redis, the reference store
     * @return the store's raw cycle; empty for a set-up that has none (replicas, Redlock)
     */
    static Optional<RawCycle> of(StoreUnderTest store, RedisTarget redis) {
        if (Stores.REFERENCE.equals(store.id())) {
            return Optional.of(new RedisRawCycle(redis));
        }
        Optional<StoreFixture> fixture = store.fixture();
        if (fixture.isEmpty()) {
            return Optional.empty();
        }
        return switch (store.id()) {
            case "h2", "postgres", "mariadb" -> Optional.of(new JdbcRawCycle(fixture.get()));
            case "zookeeper" -> server(fixture.get()).map(ZooKeeperRawCycle::new);
            case "etcd", "etcd-3" -> server(fixture.get())
                    .map(endpoints -> new EtcdRawCycle(List.of(endpoints.split(","))));
            case "memcached" -> server(fixture.get()).map(MemcachedRawCycle::new);
            default -> Optional.empty();
        };
    }

    /** @return the server's address as the fixture's crash holder gets it: its first argument */
    private static Optional<String> server(StoreFixture fixture) {
        return fixture.holder().map(holder -> holder.serverArguments().get(0));
    }
}
