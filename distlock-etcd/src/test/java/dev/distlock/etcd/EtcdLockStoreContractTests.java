package dev.distlock.etcd;

import java.time.Duration;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract against one real etcd member, every node on a jetcd client of its own.
 */
class EtcdLockStoreContractTests extends LockStoreContractTests {

    private static final String KEY_PREFIX = "contract";

    static EtcdTestCluster etcd;

    static Client admin;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdTestCluster.shared();
        admin = etcd.admin();
    }

    @Override
    protected LockStore newStore() {
        // 5 s: after startStore() the client may take a moment to reconnect, and the contract's first lock call
        // then must wait for it rather than fail closed.
        return EtcdLockStore.connect(EtcdLockConfig.defaults().withEndpoints(etcd.endpoints())
                .withKeyPrefix(KEY_PREFIX).withCommandTimeout(Duration.ofSeconds(5)));
    }

    @Override
    protected void stopStore() {
        etcd.stop(0);
    }

    @Override
    protected void startStore() {
        etcd.startMember(0);
    }

    @Override
    protected void breakLease(String name) {
        EtcdKeys keys = new EtcdKeys(KEY_PREFIX);
        admin.getKVClient().delete(keys.lockPrefix(name), DeleteOption.builder().isPrefix(true).build()).join();
    }

    static ByteSequence prefix(String name) {
        return new EtcdKeys(KEY_PREFIX).lockPrefix(name);
    }
}
