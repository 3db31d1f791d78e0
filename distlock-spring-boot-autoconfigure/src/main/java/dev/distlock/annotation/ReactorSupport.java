package dev.distlock.annotation;

import java.util.function.Function;

import dev.distlock.LockHandle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Holds a lock until a returned {@code Mono} or {@code Flux} terminates. Only loaded when Reactor is on the
 * classpath (see {@link SkipValues#REACTOR_PRESENT}).
 */
final class ReactorSupport {

    private ReactorSupport() {
    }

    static boolean isReactive(Class<?> type) {
        return type == Mono.class || type == Flux.class;
    }

    static Object empty(Class<?> type) {
        return type == Mono.class ? Mono.empty() : Flux.empty();
    }

    /**
     * Releases the lock when the publisher completes, fails or is cancelled, before the terminal signal reaches the
     * subscriber (so a subscriber that saw completion can take the lock at once).
     */
    static Object holdUntilTerminated(Object result, LockHandle handle) {
        Function<LockHandle, Mono<Void>> release = h -> Mono.fromRunnable(h::unlock);
        if (result instanceof Mono<?> mono) {
            return Mono.usingWhen(Mono.just(handle), h -> mono, release, (h, error) -> release.apply(h), release);
        }
        Flux<?> flux = (Flux<?>) result;
        return Flux.usingWhen(Mono.just(handle), h -> flux, release, (h, error) -> release.apply(h), release);
    }
}
