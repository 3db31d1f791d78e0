package dev.distlock.quorum;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one request's calls to each node in the order they were sent: per request, per node, the last call that
 * node has not answered yet (an undo, an attempt that came after the vote was decided). A request that reuses its
 * owner token must not let an attempt overtake the undo of its previous attempt on a node (the undo would delete
 * the new grant, and another caller could then win a majority with that node), nor a release or undo overtake a
 * late attempt (which would then hold that node for a whole lease). Entries go once every node answered.
 */
final class RequestOrder {

    private final Map<LockRequest, CompletableFuture<?>[]> unanswered = new ConcurrentHashMap<>();

    /**
     * @param request the request
     * @return per node the request's last call there (done or not), or {@code null} when every node answered all;
     *         forgotten here: the caller {@link #remember}s what it sends next
     */
    CompletableFuture<?> @Nullable [] take(LockRequest request) {
        return unanswered.remove(request);
    }

    /**
     * @param request the request
     * @param lastCalls per node the request's last call there; kept until every node answered its call
     */
    void remember(LockRequest request, CompletableFuture<?>[] lastCalls) {
        CompletableFuture<Void> all = CompletableFuture.allOf(lastCalls);
        if (all.isDone()) {
            return;
        }
        unanswered.put(request, lastCalls);
        all.whenComplete((done, error) -> unanswered.remove(request, lastCalls));
    }

    /**
     * @param lastCalls what {@link #take} returned
     * @param node the node's index
     * @return whether the node answered the request's last call there (a node may be asked again at once)
     */
    static boolean answered(CompletableFuture<?> @Nullable [] lastCalls, int node) {
        return lastCalls == null || lastCalls[node].isDone();
    }

    /**
     * Sends a call to a node strictly after the request's last call there was answered (at once if it was).
     *
     * @param <T> the answer's type
     * @param lastCalls what {@link #take} returned
     * @param node the node's index
     * @param call sends the call; may throw, which fails the returned stage
     * @return the call's answer; completes, normally or not, once the node answered it
     */
    static <T> CompletableFuture<T> after(CompletableFuture<?> @Nullable [] lastCalls, int node,
            Supplier<? extends CompletionStage<T>> call) {
        if (lastCalls == null || lastCalls[node].isDone()) {
            return send(call);
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        lastCalls[node].whenComplete((done, error) -> relay(send(call), answer));
        return answer;
    }

    /**
     * @return the call's answer as a future of its own; a call that throws is a failed answer
     */
    static <T> CompletableFuture<T> send(Supplier<? extends CompletionStage<T>> call) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        try {
            relay(call.get(), answer);
        }
        catch (RuntimeException ex) {
            answer.completeExceptionally(ex);
        }
        return answer;
    }

    private static <T> void relay(CompletionStage<T> from, CompletableFuture<T> to) {
        from.whenComplete((value, error) -> {
            if (error != null) {
                to.completeExceptionally(error);
            }
            else {
                to.complete(value);
            }
        });
    }

    /** @return the request's last call to the node before this one, or a completed stage when there was none */
    static CompletableFuture<?> lastCall(CompletableFuture<?> @Nullable [] previous, int node) {
        return (previous != null) ? previous[node] : CompletableFuture.completedFuture(null);
    }
}
