package dev.distlock.docs.migration;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockType;
import dev.distlock.MultiLockHandle;
import dev.distlock.core.LockAdministration;

/** The distlock side of docs/how-to/migrate-from-redisson.md, compiled. */
class FromRedisson {

    private final LockService lockService;

    private final LockAdministration administration;

    private long lastToken;

    FromRedisson(LockService lockService, LockAdministration administration) {
        this.lockService = lockService;
        this.administration = administration;
    }

    void lock() {
        // tag::lock[]
        try (LockHandle lock = lockService.lock("stock:42")) {
            lastToken = lock.fencingToken(); // every lock has one: no RFencedLock needed
        }
        // end::lock[]
    }

    void tryLock() {
        // tag::try-lock[]
        Optional<LockHandle> lock = lockService.tryLock("stock:42", LockOptions.defaults()
                .withWaitTime(Duration.ofSeconds(1))     // tryLock(1, ..., SECONDS)
                .withLeaseTime(Duration.ofSeconds(10))); // a fixed lease, never renewed (leave it out: watchdog)
        if (lock.isPresent()) {
            try (LockHandle handle = lock.get()) {
                lastToken = handle.fencingToken();
            }
        }
        // end::try-lock[]
    }

    void readWriteAndMulti() {
        // tag::read-multi[]
        try (LockHandle read = lockService.lock("catalog", LockOptions.defaults().withType(LockType.READ))) {
            lastToken = read.fencingToken();
        }
        try (MultiLockHandle both = lockService.lockAll(List.of("account:1", "account:2"), LockOptions.defaults())) {
            lastToken = both.locks().get(0).fencingToken(); // taken in one global order: no deadlock
        }
        try (LockHandle permit = lockService.lock("export", LockOptions.defaults().withPermits(3))) {
            lastToken = permit.fencingToken();
        }
        // end::read-multi[]
    }

    void forceUnlock() {
        // tag::force[]
        boolean released = administration.forceRelease("stock:42"); // audited over HTTP: DELETE /actuator/distlock/stock:42
        // end::force[]
        lastToken = released ? 0 : lastToken;
    }
}
