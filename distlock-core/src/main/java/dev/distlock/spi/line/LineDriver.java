package dev.distlock.spi.line;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * What a line store implements for {@link LineAttempts}: the client calls on its server's line. The duties that
 * hold for every method (entries numbered by the server in creation order, tokens from that number, futures
 * completed on any thread without blocking, entries of an ended session reported by the registry) are the package's;
 * read them first.
 * <p>
 * A driver registers every entry it makes in the store's {@link LineRegistry} as soon as the entry may exist on the
 * server, so that a cancel (also the engine's undo of an attempt whose answer came late) finds and deletes it. A
 * failed future fails the attempt; the engine's cancel, chained after it, deletes the entry.
 *
 * @param <E> the store's entry
 * @param <K> how the store names an entry in a listing
 */
public interface LineDriver<E extends LineEntry, K> {

    /**
     * Puts a new entry for the request at the end of its name's line, on the store's session or lease, and
     * registers it.
     *
     * @param request the request, which has no usable entry
     * @return the entry, with the line when the same round trip listed it (else {@link LineAttempts} lists it)
     */
    CompletableFuture<Joined<E, K>> join(LockRequest request);

    /**
     * @param entry an entry in line
     * @return its name's line as the server lists it now: without the entry when it is gone. It may leave out what
     *         cannot matter to the entry (see {@link LinePosition#of})
     */
    CompletableFuture<List<LinePlace<K>>> list(E entry);

    /**
     * @param entry an entry
     * @return its id in a listing
     */
    K place(E entry);

    /**
     * Watches what a waiting entry waits for (its predecessor's deletion, or for a permit its line), registering the
     * entry in the registry first; the registry wakes it when that news comes.
     *
     * @param entry the waiting entry
     * @param position what it waits for
     * @return empty when the watch is set and the entry still waits; else the line, which moved meanwhile (the
     *         predecessor is gone already, a permit freed), on which the entry's position is judged again
     */
    CompletableFuture<Optional<List<LinePlace<K>>>> await(E entry, LinePosition.Waits<K> position);

    /**
     * Deletes an entry the registry forgot (a cancel, a last try leaving, a refused request), seen through even
     * when the server does not confirm it at once: an entry left behind blocks the name for the session's life.
     *
     * @param entry the entry
     * @return completes, never exceptionally, when the server answered
     */
    CompletableFuture<Void> leave(E entry);

    /**
     * @param entry the entry the registry holds for a new attempt of its request
     * @return whether it still stands for the request: made in the live session or on a live lease, and known to
     *         the server; else the request joins again
     */
    boolean usable(E entry);

    /**
     * The entry now holds: e.g. watch it, so that its deletion behind the request's back counts as a lost lease.
     *
     * @param entry the entry
     */
    default void granted(E entry) {
    }

    /**
     * The registry forgot an entry found gone from the line: let go of what the store kept for it alone (e.g. a
     * lease of its own).
     *
     * @param entry the entry
     */
    default void dropped(E entry) {
    }

    /**
     * @param request the request whose entry the store lost while the attempt ran
     * @return the failure of the attempt, naming the session or lease that ended
     */
    LockUnavailableException ended(LockRequest request);

    /**
     * A new entry, and its line when the round trip that made it listed it too.
     *
     * @param <E> the store's entry
     * @param <K> how the store names an entry in a listing
     * @param entry the entry
     * @param line its line, or {@code null} when it must be listed
     */
    record Joined<E, K>(E entry, @Nullable List<LinePlace<K>> line) {
    }
}
