package dev.distlock.docs.migration;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.OnTimeout;

import org.springframework.scheduling.annotation.Scheduled;

/** The distlock side of docs/how-to/migrate-from-shedlock.md, compiled. */
class FromShedLock {

    private final LockService lockService;

    private int reports;

    FromShedLock(LockService lockService) {
        this.lockService = lockService;
    }

    // tag::scheduled[]
    @Scheduled(cron = "0 */5 * * * *")
    @DistributedLock(name = "report-job", waitTime = "0", onTimeout = OnTimeout.SKIP, holdAtLeast = "1m")
    public void buildReport() {
        LockContext.current().orElseThrow(() -> new IllegalStateException("report-job runs only under its lock"));
        reports++;
    }
    // end::scheduled[]

    // tag::fixed-lease[]
    @Scheduled(cron = "0 0 * * * *")
    @DistributedLock(name = "cleanup-job", waitTime = "0", onTimeout = OnTimeout.SKIP, leaseTime = "10m",
            holdAtLeast = "1m")
    public void cleanUp() {
        reports = 0;
    }
    // end::fixed-lease[]

    void programmatic() {
        // tag::programmatic[]
        Optional<LockHandle> lock = lockService.tryLock("report-job", LockOptions.defaults()
                .withWaitTime(Duration.ZERO).withHoldAtLeast(Duration.ofMinutes(1)));
        lock.ifPresent(handle -> {
            try (handle) {
                buildReport();
            }
        });
        // end::programmatic[]
    }
}
