package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A grant whose answer is taken after the lease it granted could have ended in the store (a slow answer within the
 * command timeout, or a JVM paused by GC or SIGSTOP, whose command timeout does not fire while it is frozen) is not a
 * lock: another node may hold the name already. Found by the 10-minute fault campaign on
 * PostgreSQL (seed 20261128): a frozen leader was told {@code granted} 2.8 s after its acquire was sent, on a 2 s
 * lease that another node had taken over, with a token below that node's. The engine now drops such a grant and
 * asks again, so a caller never gets a handle, and a candidate never a term, that is not held.
 */
class LateGrantTests {

    private static final Duration LEASE = Duration.ofMillis(400);

    /** Longer than the lease, shorter than the command timeout (2 s by default). */
    private static final long ANSWER_DELAY_MILLIS = 900;

    private final InMemoryLockStore memory = new InMemoryLockStore();

    private final List<StoreLockService> services = new ArrayList<>();

    private final List<Leadership> candidates = new ArrayList<>();

    @AfterEach
    void close() {
        candidates.forEach(Leadership::close);
        services.forEach(StoreLockService::close);
    }

    /** The in-memory store whose first granting answer arrives {@value #ANSWER_DELAY_MILLIS} ms late. */
    private LockStore firstGrantLate(AtomicBoolean delayed) {
        return new ForwardingLockStore(memory.connect()) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return super.attempt(request, waiting).thenCompose(attempt -> {
                    if (!(attempt instanceof Attempt.Granted) || !delayed.compareAndSet(false, true)) {
                        return CompletableFuture.completedFuture(attempt);
                    }
                    // The fault: the answer spends longer on the way back than the lease lasts.
                    return CompletableFuture.supplyAsync(() -> attempt,
                            CompletableFuture.delayedExecutor(ANSWER_DELAY_MILLIS, TimeUnit.MILLISECONDS));
                });
            }
        };
    }

    private StoreLockService node(LockStore store) {
        StoreLockService service = new StoreLockService(store, LockConfig.defaults().withLeaseTime(LEASE),
                new LockListener() {
                });
        services.add(service);
        service.start();
        return service;
    }

    @Test
    void aGrantAnsweredAfterItsLeaseCouldHaveEndedIsNotReturned() {
        AtomicBoolean delayed = new AtomicBoolean();
        StoreLockService service = node(firstGrantLate(delayed));

        LockHandle handle = service.tryLock("late", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))
                .orElseThrow();

        assertThat(delayed).isTrue();
        assertThat(handle.isHeld()).as("the handle a caller gets is held").isTrue();
        handle.unlock();
    }

    @Test
    void aCandidateIsNotToldGrantedForALateGrant() {
        AtomicBoolean delayed = new AtomicBoolean();
        StoreLockService service = node(firstGrantLate(delayed));
        List<Boolean> heldWhenGranted = new CopyOnWriteArrayList<>();

        candidates.add(service.campaign("late-leader", new LeadershipListener() {
            @Override
            public void granted(String group, LockHandle lease) {
                heldWhenGranted.add(lease.isHeld());
            }

            @Override
            public void revoked(String group) {
            }
        }));

        await().atMost(Duration.ofSeconds(10)).until(() -> !heldWhenGranted.isEmpty());
        assertThat(delayed).isTrue();
        assertThat(heldWhenGranted.get(0)).as("the lease is held when the leader is told granted").isTrue();
    }
}
