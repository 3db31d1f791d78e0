package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

/**
 * A separate JVM that takes a watchdog lock on Memcached and holds it until it is killed; shows that a crashed
 * holder blocks the lock for at most its lease (and the store's rounding to whole seconds). Arguments: server
 * (host:port), key prefix, lock name, lease in ms, and optionally the permits (1 without). Prints "LOCKED token".
 */
public final class MemcachedHolderProcess {

    private MemcachedHolderProcess() {
    }

    /**
     * @param args server, key prefix, lock name, lease ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        Duration timeout = Duration.ofSeconds(10); // a cold JVM on a busy machine
        MemcachedLockStore store = MemcachedLockStore.connect(new MemcachedLockConfig(List.of(args[0]), args[1],
                timeout, false));
        StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                .withLeaseTime(Duration.ofMillis(Long.parseLong(args[3]))).withCommandTimeout(timeout),
                LockListener.NONE);
        service.start();
        HolderJvm.holdUntilKilled(service, args[2], args.length > 4 ? Integer.parseInt(args[4]) : 1);
    }
}
