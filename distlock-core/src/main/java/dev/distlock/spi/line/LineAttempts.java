package dev.distlock.spi.line;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * The attempts and cancels of a line store, on its {@link LineDriver}: a request's entry in its name's line; the
 * head (or, for permits, the first {@code n}; for readers, those ahead of the first writer) holds, the others watch
 * what they wait for ({@link LinePosition}). An attempt goes in rounds: join the line (once per request), look where
 * the entry stands, then hold, leave or watch; a round starts again when the entry was deleted behind the request's
 * back or what it waited for went meanwhile, at most {@link #MAX_ROUNDS} times.
 * <ul>
 * <li>a waiter answers busy for at most {@link #RECHECK}: it is woken when the line moves, this bounds only the
 * engine's fallback re-check;</li>
 * <li>a {@link Waiting.LastTry last try} that would wait leaves the line and answers busy, leaving no entry
 * behind;</li>
 * <li>a request whose permits differ from the name's leaves the line and fails
 * ({@link LockRequest#permitsMismatch}).</li>
 * </ul>
 * Futures complete on the driver's threads; nothing here blocks.
 *
 * @param <E> the store's entry
 * @param <K> how the store names an entry in a listing
 */
public final class LineAttempts<E extends LineEntry, K> {

    /** A waiter is woken when the line moves; this only bounds the engine's fallback re-check. */
    public static final Duration RECHECK = Duration.ofMillis(500);

    /** Rounds of one attempt (an entry deleted behind its back, a predecessor gone meanwhile) before it is busy. */
    public static final int MAX_ROUNDS = 8;

    private final LineRegistry<E, ?> registry;

    private final LineDriver<E, K> driver;

    /**
     * @param registry the store's entries
     * @param driver the store's calls
     */
    public LineAttempts(LineRegistry<E, ?> registry, LineDriver<E, K> driver) {
        this.registry = registry;
        this.driver = driver;
    }

    /**
     * @param request the request
     * @param waiting whether it queues
     * @return granted with the entry's fencing token, or busy (a last try leaves the line first)
     */
    public CompletableFuture<Attempt> attempt(LockRequest request, Waiting waiting) {
        E known = registry.byOwner(request.ownerToken());
        if (known != null && !driver.usable(known)) {
            registry.forget(known); // its session or lease ended: the server deleted (or will delete) it
            known = null;
        }
        // A failed attempt leaves its entry in line; the engine's cancel, chained after it, deletes it.
        return round(request, waiting, known, null, 0);
    }

    /** Deletes the request's entry, waiting or held. Never fails. */
    public CompletableFuture<Void> cancel(LockRequest request) {
        E entry = registry.byOwner(request.ownerToken());
        if (entry != null && registry.forget(entry)) {
            return driver.leave(entry);
        }
        return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Attempt> round(LockRequest request, Waiting waiting, @Nullable E known,
            @Nullable List<LinePlace<K>> knownLine, int round) {
        if (round == MAX_ROUNDS) {
            return CompletableFuture.completedFuture(Attempt.busy(Duration.ofMillis(1)));
        }
        CompletableFuture<LineDriver.Joined<E, K>> joined = (known != null)
                ? CompletableFuture.completedFuture(new LineDriver.Joined<>(known, knownLine))
                : driver.join(request);
        return joined.thenCompose(entered -> {
            E entry = entered.entry();
            List<LinePlace<K>> listed = entered.line();
            CompletableFuture<List<LinePlace<K>>> line = (listed != null) ? CompletableFuture.completedFuture(listed)
                    : driver.list(entry);
            return line.thenCompose(current -> judge(request, waiting, entry, current, round));
        });
    }

    /** Acts on where the entry stands in the listed line. */
    private CompletableFuture<Attempt> judge(LockRequest request, Waiting waiting, E entry,
            List<LinePlace<K>> line, int round) {
        LinePosition<K> position = LinePosition.of(line, driver.place(entry));
        if (position instanceof LinePosition.Gone<K>) { // deleted behind our back: queue again
            if (registry.forget(entry)) {
                driver.dropped(entry);
            }
            return round(request, waiting, null, null, round + 1);
        }
        if (position instanceof LinePosition.Mismatched<K> mismatched) {
            // Out of line before the caller hears of it, so that a corrected retry finds no trace (the engine
            // chains no cancel after a refusal).
            return cancel(request).thenCompose(left -> CompletableFuture.<Attempt>failedFuture(
                    request.permitsMismatch(mismatched.heldWith())));
        }
        if (position instanceof LinePosition.Waits<K> waits) {
            return waitFor(request, waiting, entry, waits, round);
        }
        return CompletableFuture.completedFuture(grant(entry)); // Holds
    }

    private CompletableFuture<Attempt> waitFor(LockRequest request, Waiting waiting, E entry,
            LinePosition.Waits<K> position, int round) {
        if (waiting instanceof Waiting.LastTry) { // a last (or only) attempt: leave the line now
            return cancel(request).thenApply(left -> Attempt.busy(RECHECK));
        }
        return driver.await(entry, position).thenCompose(moved -> moved.isEmpty()
                ? CompletableFuture.completedFuture(busyFor(waiting))
                : round(request, waiting, entry, moved.get(), round + 1)); // it moved: look again
    }

    private Attempt grant(E entry) {
        if (registry.byOwner(entry.owner()) != entry || !driver.usable(entry)) {
            throw driver.ended(entry.request());
        }
        registry.stopWaiting(entry);
        entry.hold();
        driver.granted(entry);
        return Attempt.granted(entry.fencingToken());
    }

    /** Busy while the watch waits for the line to move: re-checked after {@link #RECHECK} at most. */
    private static Attempt busyFor(Waiting waiting) {
        return Attempt.busy(waiting.remaining().compareTo(RECHECK) < 0 ? waiting.remaining() : RECHECK);
    }
}
