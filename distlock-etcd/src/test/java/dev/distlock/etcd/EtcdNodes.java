package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.CountingLockStore;

/**
 * Application nodes for tests: each a lock service on an etcd store with a jetcd client of its own. Closes them all
 * at the end.
 */
final class EtcdNodes implements AutoCloseable {

    private final List<StoreLockService> services = new ArrayList<>();

    private final Map<StoreLockService, CountingLockStore> counters = new IdentityHashMap<>();

    /**
     * @param config the store settings
     * @param engine the engine settings (the command timeout is taken from {@code config})
     * @param listener the lock listener (e.g. a history's)
     * @return a started node
     */
    StoreLockService node(EtcdLockConfig config, LockConfig engine, LockListener listener) {
        CountingLockStore counting = new CountingLockStore(EtcdLockStore.connect(config));
        StoreLockService service = new StoreLockService(counting,
                engine.withCommandTimeout(config.commandTimeout()), listener);
        service.start();
        services.add(service);
        counters.put(service, counting);
        return service;
    }

    /** @return a node with a 10 s default wait */
    StoreLockService node(EtcdLockConfig config, LockListener listener) {
        return node(config, LockConfig.defaults().withWaitTime(Duration.ofSeconds(10)), listener);
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
