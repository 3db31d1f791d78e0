package dev.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.core.ClockDrift;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared leases of watchdog requests, one per TTL asked for (in practice one per application instance: every
 * watchdog lock of {@code distlock.lease-time}), granted on first use and kept alive by the store itself.
 * <p>
 * The store does not use jetcd's keep-alive stream: that stream can end without telling its observer (jetcd #965,
 * #1383), and then leases run out while the holders believe them alive. Instead every {@code TTL / 3} it sends one
 * keep-alive ({@code keepAliveOnce}), bounded by {@code distlock.command-timeout}, and counts the lease as alive
 * only until the send time of the last keep-alive etcd confirmed plus the TTL it confirmed
 * ({@link SessionLease#valid()}). When that moment comes without a newer confirmation — keep-alives unanswered,
 * failing, or never sent — the lease is declared lost <em>at that moment</em>, before etcd can have expired it and
 * another instance can take the locks, and its holders are told ({@code onLost}). An etcd answer that the lease is
 * not found loses it at once.
 */
final class SessionLeases {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);

    private final Lease leases;

    private final ScheduledExecutorService scheduler;

    private final long timeoutMillis;

    private final Consumer<SessionLease> onLost;

    private final ConcurrentHashMap<Long, CompletableFuture<SessionLease>> byTtl = new ConcurrentHashMap<>();

    private volatile boolean closed;

    SessionLeases(Lease leases, ScheduledExecutorService scheduler, Duration commandTimeout,
            Consumer<SessionLease> onLost) {
        this.leases = leases;
        this.scheduler = scheduler;
        this.timeoutMillis = commandTimeout.toMillis();
        this.onLost = onLost;
    }

    /**
     * @param ttlSeconds the TTL, whole seconds
     * @return the live shared lease of that TTL, granted now when there is none (one grant at a time per TTL)
     */
    CompletableFuture<SessionLease> current(long ttlSeconds) {
        return byTtl.compute(ttlSeconds, (ttl, existing) -> usable(existing) ? existing : grant(ttl));
    }

    private static boolean usable(@Nullable CompletableFuture<SessionLease> lease) {
        if (lease == null || lease.isCompletedExceptionally()) {
            return false;
        }
        return !lease.isDone() || lease.join().valid(); // a grant in flight is shared
    }

    private CompletableFuture<SessionLease> grant(long ttlSeconds) {
        long sent = System.nanoTime();
        return leases.grant(ttlSeconds).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).thenApply(granted -> {
            SessionLease lease = new SessionLease(granted.getID(), ttlSeconds,
                    ClockDrift.deadline(sent, Duration.ofSeconds(granted.getTTL())));
            if (closed) {
                revoke(lease);
                throw new IllegalStateException("The etcd lock store is closed");
            }
            log.debug("Granted etcd {} (etcd's TTL {} s)", lease, granted.getTTL());
            scheduleKeepAlive(lease, keepAliveMillis(granted.getTTL()));
            scheduleExpiryCheck(lease);
            return lease;
        });
    }

    /** A third of the TTL: two keep-alives may fail before the lease could run out. */
    private static long keepAliveMillis(long ttlSeconds) {
        return Math.max(100, TimeUnit.SECONDS.toMillis(ttlSeconds) / 3);
    }

    private void scheduleKeepAlive(SessionLease lease, long delayMillis) {
        if (!closed && !lease.lost()) {
            lease.nextKeepAlive = scheduler.schedule(() -> keepAlive(lease), delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void keepAlive(SessionLease lease) {
        long sent = System.nanoTime();
        leases.keepAliveOnce(lease.id).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((kept, error) -> {
            if (error == null) {
                lease.confirmedUntil(ClockDrift.deadline(sent, Duration.ofSeconds(kept.getTTL())));
                scheduleKeepAlive(lease, keepAliveMillis(kept.getTTL()));
            }
            else if (notFound(error)) {
                lose(lease, "etcd no longer knows it");
            }
            else {
                log.debug("Keep-alive of etcd {} failed; retried until it could have expired", lease, error);
                scheduleKeepAlive(lease, keepAliveMillis(lease.requestedTtlSeconds));
            }
        });
    }

    /** @return whether etcd answered that the lease is not found (it ended, or was revoked) */
    static boolean notFound(Throwable error) {
        Throwable cause = error;
        while (cause != null) {
            // jetcd reports it as its own exception from keep-alives, as gRPC's status from transactions.
            if ((cause instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND)
                    || (cause instanceof StatusRuntimeException status
                            && status.getStatus().getCode() == Status.Code.NOT_FOUND)) {
                return true;
            }
            cause = cause.getCause();
        }
        return false;
    }

    /** Declares the lease lost when its last confirmed end comes, unless a keep-alive moved the end on. */
    private void scheduleExpiryCheck(SessionLease lease) {
        if (closed || lease.lost()) {
            return;
        }
        long delay = lease.validUntilNanos() - System.nanoTime();
        lease.expiryCheck = scheduler.schedule(() -> {
            if (lease.valid()) {
                scheduleExpiryCheck(lease);
            }
            else {
                lose(lease, "no keep-alive confirmed within its TTL");
            }
        }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    /** Declares a lease lost (once): its holders are told, and the next request gets a new lease. */
    void lose(SessionLease lease, String why) {
        if (!lease.markLost()) {
            return;
        }
        byTtl.computeIfPresent(lease.requestedTtlSeconds,
                (ttl, current) -> current.isDone() && !current.isCompletedExceptionally() && current.join() == lease
                        ? null : current);
        cancelTimers(lease);
        if (!closed) {
            log.warn("etcd {} lost ({}): the locks held on it count as lost", lease, why);
            onLost.accept(lease);
        }
        revoke(lease); // frees its keys at once when etcd still has it (only our confirmations were lost)
    }

    private static void cancelTimers(SessionLease lease) {
        if (lease.nextKeepAlive != null) {
            lease.nextKeepAlive.cancel(false);
        }
        if (lease.expiryCheck != null) {
            lease.expiryCheck.cancel(false);
        }
    }

    private CompletableFuture<?> revoke(SessionLease lease) {
        return leases.revoke(lease.id).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((revoked, error) -> {
            if (error != null) {
                log.debug("Could not revoke etcd {}; it runs out by itself", lease, error);
            }
        });
    }

    /** @return how many shared leases are live */
    int size() {
        return (int) byTtl.values().stream().filter(SessionLeases::usable).count();
    }

    /**
     * Revokes every shared lease (the engine released the locks on them before), which deletes waiters' keys at
     * once rather than at the end of the TTL.
     *
     * @return completes when etcd answered every revoke (or failed to)
     */
    CompletableFuture<Void> close() {
        closed = true;
        List<CompletableFuture<?>> revoked = new ArrayList<>();
        byTtl.values().forEach(future -> revoked.add(future.thenCompose(lease -> {
            cancelTimers(lease);
            return lease.markLost() ? revoke(lease) : CompletableFuture.completedFuture(null);
        }).exceptionally(error -> null)));
        byTtl.clear();
        return CompletableFuture.allOf(revoked.toArray(CompletableFuture[]::new));
    }
}
