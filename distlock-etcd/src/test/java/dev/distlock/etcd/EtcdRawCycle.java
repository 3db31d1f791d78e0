package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import dev.distlock.test.support.RawCycle;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;

/**
 * etcd's raw cycle: a put-if-absent transaction ({@code If createRevision(key) == 0 Then put(key, lease)}) to take,
 * a {@code delete} to give back, a waiter polls. Each node has a jetcd client of its own, built by the etcd store's
 * own {@link EtcdLockStore#newClient} (same endpoints, timeouts and deadline interceptor), and one lease granted
 * when the node starts: like the store's shared watchdog lease, not a grant per lock, and not kept alive as it
 * outlives the measurement.
 */
final class EtcdRawCycle implements RawCycle {

    private final List<String> endpoints;

    /** @param endpoints the members' client URLs */
    EtcdRawCycle(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public String recipe() {
        return "put-if-absent transaction on a lease granted per node + `delete`; waiters poll (jetcd, one client per "
                + "node)";
    }

    @Override
    public Node node() throws Exception {
        Client client = EtcdLockStore.newClient(EtcdLockConfig.defaults().withEndpoints(endpoints));
        KV kv = client.getKVClient();
        long lease;
        try {
            lease = client.getLeaseClient().grant(LEASE_MILLIS / 1000).get().getID();
        }
        catch (Exception | Error ex) {
            client.close();
            throw ex;
        }
        PutOption onLease = PutOption.builder().withLeaseId(lease).build();
        return new Node() {
            @Override
            public Held acquire(String name) throws Exception {
                ByteSequence key = ByteSequence.from(name, StandardCharsets.UTF_8);
                ByteSequence token = ByteSequence.from(UUID.randomUUID().toString(), StandardCharsets.UTF_8);
                while (!kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(key, token, onLease)).commit().get().isSucceeded()) {
                    RawCycle.backOff();
                }
                return () -> kv.delete(key).get();
            }

            @Override
            public void close() throws Exception {
                try {
                    client.getLeaseClient().revoke(lease).get();
                }
                finally {
                    client.close();
                }
            }
        };
    }
}
