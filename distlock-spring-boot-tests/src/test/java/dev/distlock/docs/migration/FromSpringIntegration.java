package dev.distlock.docs.migration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipRevokedEvent;

import org.springframework.context.event.EventListener;

/** The distlock side of docs/how-to/migrate-from-spring-integration.md, compiled. */
class FromSpringIntegration {

    private final LockService lockService;

    private volatile long consumerToken;

    FromSpringIntegration(LockService lockService) {
        this.lockService = lockService;
    }

    void obtainAndLock() {
        // tag::lock[]
        try (LockHandle lock = lockService.lock("orders:7")) { // registry.obtain("orders:7").lock() ... unlock()
            process(7, lock.fencingToken());
        }
        // end::lock[]
    }

    void tryLock() {
        // tag::try-lock[]
        Optional<LockHandle> lock = lockService.tryLock("orders:7",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(1))); // lock.tryLock(1, TimeUnit.SECONDS)
        lock.ifPresent(handle -> {
            try (handle) {
                process(7, handle.fencingToken());
            }
        });
        // end::try-lock[]
    }

    String executeLocked() {
        // tag::execute-locked[]
        return lockService.executeWithLock("orders:7", () -> {
            try {
                return export(7); // executeWithLock takes a Supplier: wrap checked exceptions
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
        // end::execute-locked[]
    }

    // tag::leader[]
    // application.yml: distlock.leader.groups: order-consumer   (instead of a LockRegistryLeaderInitiator bean)
    @EventListener
    void lead(LeadershipGrantedEvent event) {
        consumerToken = event.lease().fencingToken(); // start consuming; fence the leader's writes with this token
    }

    @EventListener
    void stop(LeadershipRevokedEvent event) {
        consumerToken = 0; // stop consuming
    }
    // end::leader[]

    private void process(long order, long fencingToken) {
        consumerToken = Math.max(consumerToken, fencingToken + order);
    }

    private String export(long order) throws IOException {
        return "order " + order;
    }
}
