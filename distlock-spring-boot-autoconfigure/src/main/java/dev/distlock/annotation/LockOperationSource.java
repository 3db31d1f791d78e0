package dev.distlock.annotation;

import java.lang.reflect.Method;

/**
 * Finds the {@link LockOperation} of a method, parsing its {@link DistributedLock} once.
 */
public interface LockOperationSource {

    /**
     * @param method the invoked method (possibly of an interface)
     * @param targetClass the bean class, or {@code null} when unknown
     * @return the operation, or {@code null} when the method is not annotated
     * @throws IllegalStateException when the annotation is invalid, naming the class, method and attribute
     */
    LockOperation getOperation(Method method, Class<?> targetClass);
}
