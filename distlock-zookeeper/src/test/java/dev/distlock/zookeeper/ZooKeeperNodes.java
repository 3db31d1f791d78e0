package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.CountingLockStore;

/**
 * Application nodes for tests: each a lock service on a ZooKeeper store with a Curator client (and session) of its
 * own. Closes them all at the end.
 */
final class ZooKeeperNodes implements AutoCloseable {

    private final List<StoreLockService> services = new ArrayList<>();

    private final Map<StoreLockService, ZooKeeperLockStore> stores = new IdentityHashMap<>();

    private final Map<StoreLockService, CountingLockStore> counters = new IdentityHashMap<>();

    /**
     * @param config the store settings
     * @param listener the lock listener (e.g. a history's)
     * @return a started node with a 10 s default wait
     */
    StoreLockService node(ZooKeeperLockConfig config, LockListener listener) {
        ZooKeeperLockStore store = ZooKeeperLockStore.connect(config);
        try {
            // A node of a test starts connected: its first lock call must not race the connection.
            if (!store.client().blockUntilConnected(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Not connected to " + config.connectString() + " within 20 s");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        CountingLockStore counting = new CountingLockStore(store);
        StoreLockService service = new StoreLockService(counting,
                LockConfig.defaults().withWaitTime(Duration.ofSeconds(10)).withCommandTimeout(config.commandTimeout()),
                listener);
        service.start();
        services.add(service);
        stores.put(service, store);
        counters.put(service, counting);
        return service;
    }

    StoreLockService node(ZooKeeperLockConfig config) {
        return node(config, LockListener.NONE);
    }

    ZooKeeperLockStore store(StoreLockService node) {
        return stores.get(node);
    }

    CountingLockStore counts(StoreLockService node) {
        return counters.get(node);
    }

    @Override
    public void close() {
        services.forEach(StoreLockService::close);
        services.clear();
    }
}
