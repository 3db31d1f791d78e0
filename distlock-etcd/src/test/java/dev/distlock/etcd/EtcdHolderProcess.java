package dev.distlock.etcd;

import java.time.Duration;
import java.util.List;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

/**
 * A separate JVM that takes a watchdog lock on etcd and holds it until it is killed; shows that a crashed holder
 * blocks the lock for at most its lease. Arguments: endpoints (comma-separated), key prefix, lock name, lease in
 * ms, and optionally the permits of the name (1, a lock, without it). Prints "LOCKED token".
 */
public final class EtcdHolderProcess {

    private EtcdHolderProcess() {
    }

    /**
     * @param args endpoints, key prefix, lock name, lease ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        EtcdLockStore store = EtcdLockStore.connect(EtcdLockConfig.defaults()
                .withEndpoints(List.of(args[0].split(","))).withKeyPrefix(args[1])
                .withCommandTimeout(Duration.ofSeconds(10)));
        StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                .withLeaseTime(Duration.ofMillis(Long.parseLong(args[3]))).withCommandTimeout(Duration.ofSeconds(10)),
                LockListener.NONE);
        service.start();
        HolderJvm.holdUntilKilled(service, args[2], args.length > 4 ? Integer.parseInt(args[4]) : 1);
    }
}
