package dev.distlock.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * How the lock of a method is held with respect to its return value: until the method returns (a plain value),
 * until a returned {@code CompletableFuture}/{@code CompletionStage} completes, or for each subscription of a
 * returned {@code Mono}/{@code Flux}. Return types that the aspect cannot hold to completion are refused at
 * start-up.
 */
enum ReturnKind {

    /** Held while the method runs. */
    PLAIN,

    /** Held until the returned stage completes; released asynchronously. */
    COMPLETION_STAGE,

    /** Acquired on each subscription and held until it terminates or is cancelled. */
    REACTIVE;

    static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            ReturnKind.class.getClassLoader());

    private static final @Nullable Class<?> PUBLISHER = load("org.reactivestreams.Publisher");

    private static final @Nullable Class<?> KOTLIN_FLOW = load("kotlinx.coroutines.flow.Flow");

    static ReturnKind of(Class<?> type) {
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return COMPLETION_STAGE;
        }
        if (REACTOR_PRESENT && ReactorSupport.isReactive(type)) {
            return REACTIVE;
        }
        return PLAIN;
    }

    /**
     * @param type a method's return type
     * @return why the aspect cannot hold a lock until a value of this type is done, or {@code null} when it can
     */
    static @Nullable String unsupported(Class<?> type) {
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
