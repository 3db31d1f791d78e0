package dev.distlock.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.MultiLockHandle;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Locks a method returning {@code Mono} or {@code Flux} for each subscription, as Spring's reactive transaction
 * support does: the lock is acquired when the returned publisher is subscribed (on a bounded-elastic thread, never
 * blocking a non-blocking one), the method is invoked then, and the lock is released when that subscription
 * completes, fails or is cancelled. A publisher that is never subscribed takes no lock; {@code retry()} and
 * {@code repeat()} run the method again under a new lock.
 * <p>
 * The call chain of a reactive pipeline is its subscriber context: a locked publisher subscribed inside another
 * one's pipeline with the same lock name re-enters that lock instead of waiting for it. A Kotlin {@code suspend fun}
 * reaches the advice as a {@code Mono} of the call and is locked like one (see {@link CoroutineSupport}). Only loaded
 * when Reactor is on the class path.
 */
final class ReactorSupport {

    /** Context key of the handles of the enclosing locked publishers, innermost last. */
    private static final String SCOPES = ReactorSupport.class.getName() + ".scopes";

    /**
     * Where releases run. Not on bounded-elastic: the acquisitions block there while they wait for the lock, and
     * with as many waiters as it has threads (10 per core) a release queued behind them would only run once they
     * timed out, so nobody would get the lock.
     */
    private static final Scheduler RELEASES = Schedulers.fromExecutor(AsyncRelease.releases());

    private ReactorSupport() {
    }

    static boolean isReactive(Class<?> type) {
        return type == Mono.class || type == Flux.class;
    }

    static Object empty(Class<?> type) {
        return type == Mono.class ? Mono.empty() : Flux.empty();
    }

    static Object lockEachSubscription(MethodInvocation invocation, LockOperation operation, List<String> lockNames,
            BiFunction<LockOperation, List<String>, @Nullable MultiLockHandle> acquire) {
        // The resource of usingWhen is the subscription's slot, made synchronously, so that every way the
        // subscription ends (complete, error, cancel at any moment) closes it. The lock is taken inside, and a grant
        // that arrives after the slot closed is released by the slot: Reactor would drop such a late value silently
        // (subscribeOn of a callable does not even pass it to a discard hook).
        Mono<LockSlot> slot = Mono.fromSupplier(() -> new LockSlot(AsyncRelease.releases()));
        Function<LockSlot, Mono<MultiLockHandle>> lock = subscription -> Mono.deferContextual(context -> Mono
                .fromCallable(() -> subscription.fill(inScopes(context, () -> acquire.apply(operation, lockNames))))
                .subscribeOn(Schedulers.boundedElastic()));
        Function<LockSlot, Mono<Void>> release = subscription -> Mono.<Void>fromRunnable(subscription::close)
                .subscribeOn(RELEASES);
        // A subscription stopped by a loss already ends with its LeaseLostException: the release's would only
        // wrap it in Reactor's "cleanup failed".
        BiFunction<LockSlot, Throwable, Mono<Void>> releaseAfterError = (subscription, error) -> error
                instanceof LeaseLostException ? Mono.<Void>fromRunnable(subscription::closeAfterLoss)
                        .subscribeOn(RELEASES) : release.apply(subscription);
        if (operation.returnKind() == ReturnKind.SUSPENDING || operation.method().getReturnType() == Mono.class) {
            return Mono.usingWhen(slot, subscription -> lock.apply(subscription)
                    .flatMap(handle -> Mono.from(stopAtLoss(invoke(invocation, operation, handle), handle))
                            .contextWrite(context -> enclose(context, handle))),
                    release, releaseAfterError, release);
        }
        return Flux.usingWhen(slot, subscription -> lock.apply(subscription)
                .flatMapMany(handle -> stopAtLoss(invoke(invocation, operation, handle), handle)
                        .contextWrite(context -> enclose(context, handle))),
                release, releaseAfterError, release);
    }

    /**
     * Invokes the method for one subscription, with the lock as the thread's scope while the method body runs (for
     * a suspending function: as its coroutine's scope, wherever it runs).
     */
    private static Publisher<?> invoke(MethodInvocation invocation, LockOperation operation, MultiLockHandle handle) {
        // Each subscription runs the rest of the advice chain anew (e.g. a transaction inside the lock).
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone()
                : invocation;
        if (operation.returnKind() == ReturnKind.SUSPENDING && call instanceof ProxyMethodInvocation proxy) {
            proxy.setArguments(CoroutineSupport.inLockScope(proxy.getArguments(), handle));
        }
        try (LockContext.Scope scope = LockContext.enter(handle)) {
            Object result = call.proceed();
            if (result instanceof Publisher<?> publisher) {
                return publisher;
            }
            throw new IllegalStateException(invocation.getMethod() + " returned " + result + " instead of a publisher");
        }
        catch (RuntimeException | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * With {@link dev.distlock.OnLeaseLost#INTERRUPT}: cancels the method's publisher at a loss and ends the
     * subscription with the {@link LeaseLostException} (for a {@code suspend fun}, cancelling the
     * publisher cancels its coroutine). The lock is then released as for any error.
     */
    private static Flux<?> stopAtLoss(Publisher<?> work, MultiLockHandle handle) {
        if (!LossStops.wanted(handle)) {
            return Flux.from(work);
        }
        AtomicReference<@Nullable Throwable> lost = new AtomicReference<>();
        Mono<Boolean> loss = Mono.create(sink -> {
            LossStops stops = LossStops.watch(handle, AsyncRelease.releases(), error -> {
                lost.set(error);
                sink.success(true);
            });
            sink.onDispose(stops::end);
        });
        return Flux.from(work).takeUntilOther(loss).concatWith(Mono.defer(() -> {
            Throwable error = lost.get();
            return (error != null) ? Mono.error(error) : Mono.empty();
        }));
    }

    private static Context enclose(Context context, MultiLockHandle handle) {
        List<MultiLockHandle> scopes = new ArrayList<>(context.<List<MultiLockHandle>>getOrDefault(SCOPES,
                List.of()));
        scopes.add(handle);
        return context.put(SCOPES, List.copyOf(scopes));
    }

    /** Runs the acquisition with the enclosing publishers' locks as the thread's scopes, so that they re-enter. */
    private static @Nullable MultiLockHandle inScopes(ContextView context,
            java.util.function.Supplier<@Nullable MultiLockHandle> acquire) {
        List<MultiLockHandle> enclosing = context.<List<MultiLockHandle>>getOrEmpty(SCOPES).orElse(List.of());
        List<LockContext.Scope> opened = new ArrayList<>(enclosing.size());
        try {
            for (MultiLockHandle handle : enclosing) {
                opened.add(LockContext.enter(handle));
            }
            return acquire.get();
        }
        finally {
            for (int i = opened.size() - 1; i >= 0; i--) {
                opened.get(i).close();
            }
        }
    }
}
