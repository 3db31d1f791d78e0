package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;

/**
 * How the lock of a method is held with respect to its return value: until the method returns (a plain value),
 * until a returned {@code CompletableFuture}/{@code CompletionStage} completes, or for each subscription of a
 * returned {@code Mono}/{@code Flux}, or for each call of a Kotlin {@code suspend fun}. Return types that the aspect
 * cannot hold to completion are refused at start-up.
 */
enum ReturnKind {

    /** Held while the method runs. */
    PLAIN,

    /** Held until the returned stage completes; released asynchronously. */
    COMPLETION_STAGE,

    /** Acquired on each subscription and held until it terminates or is cancelled. */
    REACTIVE,

    /**
     * A Kotlin {@code suspend fun}: Spring's proxy hands the advice chain a {@code Mono} of the call (and awaits it
     * in the caller's coroutine), which is locked like a returned {@code Mono}. See {@link CoroutineSupport}.
     */
    SUSPENDING;

    static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            ReturnKind.class.getClassLoader());

    /**
     * Spring's AOP proxies turn a suspending call into a {@code Mono} only when kotlinx-coroutines-reactor is
     * present, and invoke the function through kotlin-reflect; without them the advice would see the coroutine's
     * first suspension ({@code COROUTINE_SUSPENDED}) and could not hold the lock until the function completes.
     */
    static final boolean COROUTINES_PRESENT = REACTOR_PRESENT
            && ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", ReturnKind.class.getClassLoader())
            && KotlinDetector.isKotlinReflectPresent();

    private static final @Nullable Class<?> PUBLISHER = load("org.reactivestreams.Publisher");

    private static final @Nullable Class<?> KOTLIN_FLOW = load("kotlinx.coroutines.flow.Flow");

    static ReturnKind of(Method method) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            return SUSPENDING;
        }
        return of(method.getReturnType());
    }

    private static ReturnKind of(Class<?> type) {
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return COMPLETION_STAGE;
        }
        if (REACTOR_PRESENT && ReactorSupport.isReactive(type)) {
            return REACTIVE;
        }
        return PLAIN;
    }

    /**
     * @param method an annotated method
     * @return why the aspect cannot hold a lock until the method's result is done, or {@code null} when it can
     */
    static @Nullable String unsupported(Method method) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            if (!COROUTINES_PRESENT) {
                return "a suspending function is locked only when kotlinx-coroutines-reactor and kotlin-reflect are "
                        + "on the class path (Spring's proxy then hands the lock a Mono of the call to hold until it "
                        + "completes); add them, or return a Mono or a CompletableFuture";
            }
            return CoroutineSupport.unsupported(method);
        }
        Class<?> type = method.getReturnType();
        if (type == Object.class) {
            return "Object: the lock could not be held until an asynchronous result completes; declare the "
                    + "concrete return type";
        }
        if (of(type) != PLAIN) {
            return null;
        }
        if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
            return type.getName() + ": only CompletableFuture and CompletionStage are held until they complete";
        }
        if ((PUBLISHER != null && PUBLISHER.isAssignableFrom(type))
                || (KOTLIN_FLOW != null && KOTLIN_FLOW.isAssignableFrom(type))) {
            return type.getName() + ": only Reactor's Mono and Flux are held for each subscription";
        }
        return null;
    }

    private static @Nullable Class<?> load(String name) {
        try {
            return ClassUtils.forName(name, ReturnKind.class.getClassLoader());
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }
}
