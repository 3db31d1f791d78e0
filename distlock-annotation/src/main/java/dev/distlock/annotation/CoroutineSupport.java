package dev.distlock.annotation;

import java.lang.reflect.Method;

import dev.distlock.LockContext;
import dev.distlock.MultiLockHandle;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlin.jvm.functions.Function2;
import kotlinx.coroutines.ThreadContextElement;
import kotlinx.coroutines.flow.Flow;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.MethodParameter;

/**
 * Kotlin {@code suspend fun} support. Spring's AOP proxies (with kotlinx-coroutines-reactor present) run the advice
 * chain of a suspending call as a {@code Mono} of the call and await that {@code Mono} in the caller's coroutine, so
 * {@link ReactorSupport} locks it like a method returning {@code Mono}: the lock is taken on a bounded-elastic thread
 * when the caller awaits (the caller's thread is free meanwhile), the function runs under it, and the lock is
 * released when the function returns or throws, or when the caller's coroutine is cancelled (which cancels the
 * subscription); the caller resumes only after the release.
 * <p>
 * The function's coroutine also gets the lock as its {@link LockContext} scope: on every thread it resumes on,
 * {@code LockContext.current()} is the lock's handle (for its fencing token) and asking for the same lock again from
 * the function re-enters it. Only loaded when Kotlin and kotlinx-coroutines are on the class path.
 */
final class CoroutineSupport {

    private CoroutineSupport() {
    }

    /**
     * @param method a suspending function
     * @return why its lock cannot be held until its result is done, or {@code null} when it can
     */
    static @Nullable String unsupported(Method method) {
        Class<?> type = new MethodParameter(method, -1).getParameterType();
        if (Flow.class.isAssignableFrom(type) || Publisher.class.isAssignableFrom(type)) {
            return type.getName() + ": a suspending function returning a stream would hold the lock only until the "
                    + "stream is returned, not while it is collected; declare a function (not suspending) returning a Flux, or "
                    + "return a value";
        }
        return null;
    }

    /**
     * @param method a suspending function
     * @return whether it may complete with {@code null}: its Kotlin return type is nullable or {@code Unit}
     */
    static boolean mayReturnNull(Method method) {
        MethodParameter returned = new MethodParameter(method, -1);
        Class<?> type = returned.getParameterType();
        return type == Unit.class || type == void.class || returned.isOptional();
    }

    /**
     * The arguments of one call of a suspending function with the lock as its coroutine's scope: Spring runs the
     * function in a coroutine whose context is that of the last argument, the caller's continuation.
     *
     * @param arguments the call's arguments, the caller's continuation last
     * @param handle the locks held for the call
     * @return a copy whose continuation has the lock's scope in its context; resuming it resumes the caller's
     */
    static Object[] inLockScope(Object[] arguments, MultiLockHandle handle) {
        Object[] copy = arguments.clone();
        @SuppressWarnings("unchecked")
        Continuation<Object> caller = (Continuation<Object>) copy[copy.length - 1];
        CoroutineContext context = caller.getContext().plus(new LockScopeElement(handle));
        copy[copy.length - 1] = new Continuation<Object>() {
            @Override
            public CoroutineContext getContext() {
                return context;
            }

            @Override
            public void resumeWith(Object result) {
                caller.resumeWith(result);
            }
        };
        return copy;
    }

    /**
     * Opens the lock's {@link LockContext} scope on the thread a coroutine resumes on, and closes it on that thread
     * when the coroutine suspends or ends. Each element is its own key, so that the scopes of nested locked calls
     * all stay in the inner coroutine's context, outermost first (coroutines open them in context order).
     */
    private static final class LockScopeElement implements ThreadContextElement<LockContext.Scope>,
            CoroutineContext.Key<LockScopeElement> {

        private final MultiLockHandle handle;

        LockScopeElement(MultiLockHandle handle) {
            this.handle = handle;
        }

        @Override
        public LockContext.Scope updateThreadContext(CoroutineContext context) {
            return LockContext.enter(handle);
        }

        @Override
        public void restoreThreadContext(CoroutineContext context, LockContext.Scope scope) {
            scope.close();
        }

        @Override
        public CoroutineContext.Key<?> getKey() {
            return this;
        }

        // Kotlin's default methods of CoroutineContext.Element, which a Java class must spell out.

        @Override
        public <E extends CoroutineContext.Element> @Nullable E get(CoroutineContext.Key<E> key) {
            return CoroutineContext.Element.DefaultImpls.get(this, key);
        }

        @Override
        public <R> R fold(R initial, Function2<? super R, ? super CoroutineContext.Element, ? extends R> operation) {
            return CoroutineContext.Element.DefaultImpls.fold(this, initial, operation);
        }

        @Override
        public CoroutineContext minusKey(CoroutineContext.Key<?> key) {
            return CoroutineContext.Element.DefaultImpls.minusKey(this, key);
        }

        @Override
        public CoroutineContext plus(CoroutineContext context) {
            return CoroutineContext.Element.DefaultImpls.plus(this, context);
        }

        @Override
        public String toString() {
            return "DistributedLockScope" + handle.locks();
        }
    }
}
