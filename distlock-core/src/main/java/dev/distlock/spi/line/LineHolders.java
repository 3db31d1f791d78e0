package dev.distlock.spi.line;

import java.util.List;
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
}
