package dev.distlock.autoconfigure;

import dev.distlock.annotation.DistributedLockMethodValidator;
import dev.distlock.spi.LockStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Fails application start-up when a {@code @DistributedLock} method asks for permits but the lock store has none
 * (Memcached, and the quorum stores, Redlock among them): otherwise every call of that method would throw, starting
 * with the first one in production.
 */
final class PermitsSupportVerifier implements SmartInitializingSingleton {

    private final DistributedLockMethodValidator validator;

    private final ObjectProvider<LockStore> stores;

    PermitsSupportVerifier(DistributedLockMethodValidator validator, ObjectProvider<LockStore> stores) {
        this.validator = validator;
        this.stores = stores;
    }

    @Override
    public void afterSingletonsInstantiated() {
        validator.methodWithPermits().ifPresent(method -> {
            LockStore store = stores.getIfUnique();
            if (store != null && !store.traits().permits()) {
                throw new LockStoreSelectionException(method + " needs a lock store with permits, but " + store
                        + " has none. Use permits with a Redis (standalone, Sentinel or Cluster), JDBC, ZooKeeper "
                        + "or etcd store, or lock the method without permits.", "Remove permits from the "
                        + "annotation (a plain lock), or use a lock store with permits (not Memcached, nor a quorum "
                        + "store such as Redlock).");
            }
        });
    }
}
