package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import dev.distlock.test.support.HolderJvm;
import dev.distlock.test.support.StoreFixture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release, no goodbye to the store) blocks the lock, or its
 * permit, for at most its lease (a ZooKeeper session timeout): while it lives its watchdog (or session) keeps the
 * lock past the lease; once killed, another node takes it within the lease and some slack, with a higher token.
 * Runs on every fixture with a holder main ({@link StoreFixture#holder()}); skipped, saying so, on the others.
 */
@StoreContract
class HolderCrashContractTests extends ContractNodes {

    /** The holder's lease (or session timeout). */
    private static final long LEASE_MILLIS = 1500;

    /** After the lease: the store's expiry tick (etcd 500 ms, ZooKeeper's) and a busy machine. */
    private static final long SLACK_MILLIS = 2000;

    @Test
    void theLockOfAKilledHolderJvmIsFreeAgainWithinItsLease() throws Exception {
        StoreLockService node = node();
        try (HolderJvm holder = holder("crash")) {
            long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
            long lockedAt = System.nanoTime();
            // Refused throughout a time longer than the lease: only the live holder keeps the lock. A lock wrongly
            // granted is counted and given back: kept, it would be this node that blocks the survivor below.
            AtomicInteger grantedWhileHeld = new AtomicInteger();
            await().during(Duration.ofMillis(LEASE_MILLIS + 500)).atMost(Duration.ofMillis(LEASE_MILLIS + 5000))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        node.tryLock("crash", NO_WAIT).ifPresent(taken -> {
                            grantedWhileHeld.incrementAndGet();
                            taken.unlock();
                        });
                        return true; // asked throughout; the grants are checked below, with the holder's output
                    });
            assertThat(grantedWhileHeld).as("grants to another node while the holder JVM lived; it printed:%n%s",
                    holder.output()).hasValue(0);

            holder.kill();
            long killed = System.nanoTime();
            // The killed holder held the lock until it died at the latest (its work may have gone on until then).
            history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
            try (LockHandle handle = node.lock("crash", LockOptions.defaults()
                    .withWaitTime(Duration.ofMillis(LEASE_MILLIS * 4)))) {
                Duration after = Duration.ofNanos(System.nanoTime() - killed);
                history.hold("survivor", handle, () -> assertThat(after)
                        .isLessThanOrEqualTo(Duration.ofMillis(LEASE_MILLIS + SLACK_MILLIS)));
                assertThat(handle.fencingToken()).isGreaterThan(holderToken);
            }
            history.assertConsistent();
        }
    }

    @Test
    void aPermitOfAKilledHolderJvmIsFreeAgainWithinItsLeaseAndTheSurvivorKeepsItsOwn() throws Exception {
        StoreLockService node = node();
        Assumptions.assumeTrue(storeOf(node).traits().permits(), () -> fixture().label() + " has no permits");
        LockOptions twoPermits = LockOptions.defaults().withPermits(2);
        try (HolderJvm holder = holder("crash-pool", "2")) {
            long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
            LockHandle other = node.lock("crash-pool", twoPermits);
            assertThat(other.fencingToken()).isGreaterThan(holderToken);
            // Refused throughout a time longer than the lease: the live holder keeps its permit. A permit wrongly
            // granted is counted and given back (else it would fill the place it showed free).
            AtomicInteger beyondThePermits = new AtomicInteger();
            await().during(Duration.ofMillis(LEASE_MILLIS + 500)).atMost(Duration.ofMillis(LEASE_MILLIS + 5000))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)).ifPresent(third -> {
                            beyondThePermits.incrementAndGet();
                            third.unlock();
                        });
                        return true; // asked throughout; the grants are checked below, with the holder's output
                    });
            assertThat(beyondThePermits).as("permits granted beyond the two; the holder JVM printed:%n%s",
                    holder.output()).hasValue(0);

            holder.kill();
            long killed = System.nanoTime();
            try (LockHandle freed = node.lock("crash-pool", twoPermits
                    .withWaitTime(Duration.ofMillis(LEASE_MILLIS * 4)))) {
                assertThat(Duration.ofNanos(System.nanoTime() - killed))
                        .isLessThanOrEqualTo(Duration.ofMillis(LEASE_MILLIS + SLACK_MILLIS));
                assertThat(freed.fencingToken()).isGreaterThan(other.fencingToken());
                assertThat(other.isHeld()).as("the survivor's own permit").isTrue();
                assertThat(node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)))
                        .as("both permits held again: the survivor's and the freed one").isEmpty();
            }
            assertThat(other.isHeld()).isTrue();
            other.unlock();
        }
    }

    /** Starts the fixture's holder main on a name, with the lease and, optionally, the permits. */
    private HolderJvm holder(String name, String... permits) throws Exception {
        Optional<StoreFixture.HolderCommand> found = fixture().holder();
        if (found.isEmpty()) {
            Assumptions.abort(fixture().label() + " has no holder main");
        }
        StoreFixture.HolderCommand command = found.get();
        List<String> arguments = new ArrayList<>(command.serverArguments());
        arguments.add(name);
        arguments.add(String.valueOf(LEASE_MILLIS));
        arguments.addAll(List.of(permits));
        return HolderJvm.start(command.main(), arguments.toArray(String[]::new));
    }
}
