package dev.distlock.annotation;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@link LockOperation} of a method, parsing its {@link DistributedLock} once; what the pointcut, the
 * start-up validator and the interceptor ask, like Spring's {@code CacheOperationSource}.
 */
public interface LockOperationSource {

    /**
     * Whether the class may have operations at all; {@code false} lets callers skip its methods.
     *
     * @param targetClass the class
     * @return {@code false} when no method of the class can have an operation
     */
    default boolean isCandidateClass(Class<?> targetClass) {
        return true;
    }

    /**
     * @param method the method
     * @param targetClass the bean class, or {@code null} when unknown
     * @return whether the method has an operation
     * @throws InvalidLockAnnotationException when the annotation is invalid, naming the class, method and attribute
     */
    default boolean hasOperation(Method method, @Nullable Class<?> targetClass) {
        return getOperation(method, targetClass) != null;
    }

    /**
     * @param method the invoked method (possibly of an interface)
     * @param targetClass the bean class, or {@code null} when unknown
     * @return the operation, or {@code null} when the method is not annotated
     * @throws InvalidLockAnnotationException when the annotation is invalid, naming the class, method and attribute
     */
    @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass);
}
