package dev.distlock.memory;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.distlock.LockInfo;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The state of one lock name in an {@link InMemoryLockStore}; guarded by its own monitor.
 */
final class Slot {

    @Nullable String owner;

    /** The owner's holder identity ({@link LockRequest#holder()}). */
    String holder = LockRequest.NO_HOLDER;

    long leaseEndNanos;

    /** Lease end per reader's owner token. */
    final Map<String, Reader> readers = new HashMap<>();

    long lastToken;

    /** While permit holders hold the name (they are kept in {@link #readers}): their number of permits. */
    int permits;

    void expire(long now) {
        if (owner != null && now - leaseEndNanos >= 0) {
            owner = null;
        }
        readers.values().removeIf(reader -> now - reader.leaseEndNanos >= 0);
        if (readers.isEmpty()) {
            permits = 0;
        }
    }

    /** Frees the name of every holder; the caller holds the monitor. */
    void clear() {
        owner = null;
        readers.clear();
        permits = 0;
    }

    /** @return the permits the name is held with: its permit holders', 1 for a lock or readers, 0 when free */
    int heldWith() {
        return permits != 0 ? permits : (owner != null || !readers.isEmpty()) ? 1 : 0;
    }

    long remainingMillis(long now) {
        long end = leaseEndNanos;
        for (Reader reader : readers.values()) {
            end = Math.max(end, reader.leaseEndNanos);
        }
        return Math.max(1, (end - now) / 1_000_000L);
    }

    /**
     * One attempt on this name.
     *
     * @param request the request
     * @param now {@link System#nanoTime()}
     * @param clockTokens whether tokens are at least the clock in µs
     * @return granted or busy
     * @throws dev.distlock.LockException when the name is held with another number of permits
     */
    synchronized Attempt take(LockRequest request, long now, boolean clockTokens) {
        expire(now);
        String token = request.ownerToken();
        int heldWith = heldWith();
        if (heldWith != 0 && heldWith != request.permits()) {
            throw request.permitsMismatch(heldWith);
        }
        LockMode mode = request.mode();
        if (mode instanceof LockMode.Permits) {
            return takePermit(request, now, clockTokens);
        }
        if (mode instanceof LockMode.Shared) {
            Reader reader = readers.get(token);
            if (reader != null) { // a repeated attempt of a reader that holds the lock: idempotent
                reader.leaseEndNanos = now + request.leaseTime().toNanos();
                return Attempt.granted(reader.fencingToken);
            }
            if (owner != null) {
                return Attempt.busy(Duration.ofMillis(remainingMillis(now)));
            }
            long fencingToken = nextToken(clockTokens);
            readers.put(token, new Reader(fencingToken, now + request.leaseTime().toNanos(), request.holder()));
            return Attempt.granted(fencingToken);
        }
        if (token.equals(owner)) {
            leaseEndNanos = now + request.leaseTime().toNanos();
            return Attempt.granted(lastToken);
        }
        if (owner != null || !readers.isEmpty()) {
            return Attempt.busy(Duration.ofMillis(remainingMillis(now)));
        }
        owner = token;
        holder = request.holder();
        leaseEndNanos = now + request.leaseTime().toNanos();
        return Attempt.granted(nextToken(clockTokens));
    }

    /** One of the name's permits, in the readers' map; the caller holds the monitor. */
    private Attempt takePermit(LockRequest request, long now, boolean clockTokens) {
        Reader holder = readers.get(request.ownerToken());
        if (holder != null) { // a repeated attempt of a holder: idempotent
            holder.leaseEndNanos = now + request.leaseTime().toNanos();
            return Attempt.granted(holder.fencingToken);
        }
        if (readers.size() >= request.permits()) {
            return Attempt.busy(Duration.ofMillis(remainingMillis(now)));
        }
        long fencingToken = nextToken(clockTokens);
        readers.put(request.ownerToken(), new Reader(fencingToken, now + request.leaseTime().toNanos(),
                request.holder()));
        permits = request.permits();
        return Attempt.granted(fencingToken);
    }

    /** @return the next token of the name: one more, and with clock tokens at least the clock in microseconds */
    private long nextToken(boolean clockTokens) {
        long next = lastToken + 1;
        if (clockTokens) {
            next = Math.max(next, ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
        }
        lastToken = next;
        return next;
    }

    /**
     * @param name the lock name
     * @param now {@link System#nanoTime()}
     * @return the owner, or of several readers or permit holders the one whose lease ends last; no waiters (the
     *         engine queues them, this store keeps no line)
     */
    synchronized Optional<LockInfo> describe(String name, long now) {
        expire(now);
        if (owner != null) {
            return Optional.of(new LockInfo(name, holder, lastToken, Duration.ofNanos(leaseEndNanos - now), null));
        }
        return readers.values().stream().max(Comparator.comparingLong(reader -> reader.leaseEndNanos - now))
                .map(reader -> new LockInfo(name, reader.holder, reader.fencingToken,
                        Duration.ofNanos(reader.leaseEndNanos - now), null));
    }

    /** One holder of a shared (read) lock, or of a permit. */
    static final class Reader {

        final long fencingToken;

        long leaseEndNanos;

        final String holder;

        Reader(long fencingToken, long leaseEndNanos, String holder) {
            this.fencingToken = fencingToken;
            this.leaseEndNanos = leaseEndNanos;
            this.holder = holder;
        }
    }
}
