package dev.distlock.docs.migration;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.OnTimeout;

/** The distlock side of docs/how-to/migrate-from-lock4j.md, compiled. */
class FromLock4j {

    private final LockService lockService;

    private int stock = 100;

    FromLock4j(LockService lockService) {
        this.lockService = lockService;
    }

    // tag::annotation[]
    @DistributedLock(name = "stock", key = "#productId", waitTime = "3s") // leaseTime left out: renewed while it runs
    public int deduct(long productId, int quantity) {
        stock -= quantity;
        return stock;
    }
    // end::annotation[]

    // tag::keys[]
    @DistributedLock(name = "order", key = "#shopId + ':' + #orderNo", waitTime = "0", onTimeout = OnTimeout.SKIP)
    public void confirm(long shopId, String orderNo) {
        stock--;
    }
    // end::keys[]

    void template() {
        // tag::template[]
        Optional<LockHandle> lock = lockService.tryLock("stock:42", LockOptions.defaults()
                .withWaitTime(Duration.ofSeconds(3)).withLeaseTime(Duration.ofSeconds(30)));
        if (lock.isPresent()) {              // lockTemplate.lock(...) returned a LockInfo
            try (LockHandle handle = lock.get()) {
                deduct(42, 1);
            }                                // lockTemplate.releaseLock(lockInfo)
        }
        // end::template[]
    }
}
