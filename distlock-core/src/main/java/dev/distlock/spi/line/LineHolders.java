package dev.distlock.spi.line;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.distlock.spi.Lease;
import dev.distlock.spi.RenewalResult;

/**
 * What a line store answers about its holders, the same for every store of the line: a forced release deletes the
 * entries that hold the name ({@link LinePosition#holders}), and a renewal renews nothing, since the entries live as
 * long as the store's session or shared lease (the package's <b>Sessions</b>), and answers whether each lease still
 * holds.
 */
public final class LineHolders {

    private LineHolders() {
    }

    /**
     * Deletes the holders of a name at once. Each holder's instance sees its entry's deletion and reports the loss;
     * the waiters behind are woken by it, and their entries' tokens are above the deleted ones'.
     *
     * @param <K> how the store names an entry in a listing
     * @param line the name's whole line as listed, in any order
     * @param delete deletes one entry, only in the incarnation listed; true when it deleted it
     * @return whether any holder was deleted
     */
    public static <K> CompletableFuture<Boolean> forceRelease(List<LinePlace<K>> line,
            Function<LinePlace<K>, CompletableFuture<Boolean>> delete) {
        List<CompletableFuture<Boolean>> deleted = LinePosition.holders(line).stream().map(delete).toList();
        return CompletableFuture.allOf(deleted.toArray(CompletableFuture<?>[]::new))
                .thenApply(done -> deleted.stream().anyMatch(CompletableFuture::join));
    }

    /**
     * @param leases the leases the engine renews
     * @param held whether a lease still holds (its entry known, its session or shared lease live)
     * @return for each lease, renewed while it holds, else lost
     */
    public static CompletableFuture<List<RenewalResult>> renewals(List<? extends Lease> leases,
            Predicate<Lease> held) {
        return CompletableFuture.completedFuture(
                leases.stream().map(lease -> held.test(lease) ? RenewalResult.RENEWED : RenewalResult.LOST).toList());
    }

    /**
     * Whom {@link dev.distlock.spi.LockStore#describe} tells of, on a line: the latest in line of the name's
     * holders (the latest grant, so the highest fencing token: one of several readers or permit holders), and how
     * many entries wait behind the holders.
     *
     * @param <K> how the store names an entry
     * @param line the whole line of a name as listed, in any order
     * @return the holder to describe and the number of waiters, or empty when nobody holds the name
     */
    public static <K> Optional<Described<K>> describing(List<LinePlace<K>> line) {
        List<LinePlace<K>> holders = LinePosition.holders(line);
        if (holders.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Described<>(holders.get(holders.size() - 1), line.size() - holders.size()));
    }

    /**
     * A holder to describe.
     *
     * @param <K> how the store names an entry
     * @param holder the holder's entry
     * @param waiters the entries of the line that do not hold the name
     */
    public record Described<K>(LinePlace<K> holder, int waiters) {
    }
}
