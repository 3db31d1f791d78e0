package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

/**
 * A separate JVM that takes a lock on ZooKeeper and holds it until it is killed; shows that a crashed holder blocks
 * the lock for at most its session timeout. Arguments: connect string, base path, lock name, session timeout in
 * ms, and optionally the permits of the name (the holder then takes one of them). Prints "LOCKED token".
 */
public final class ZooKeeperHolderProcess {

    private ZooKeeperHolderProcess() {
    }

    /**
     * @param args connect string, base path, lock name, session timeout ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        ZooKeeperLockStore store = ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                .withConnectString(args[0]).withBasePath(args[1])
                .withSessionTimeout(Duration.ofMillis(Long.parseLong(args[3]))));
        // Connected before the first lock call, which would otherwise fail closed on a busy machine.
        if (!store.client().blockUntilConnected(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not connected to " + args[0]);
        }
        StoreLockService service = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE);
        service.start();
        HolderJvm.holdUntilKilled(service, args[2], args.length > 4 ? Integer.parseInt(args[4]) : 1);
    }
}
