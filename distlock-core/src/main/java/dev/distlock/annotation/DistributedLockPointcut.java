package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Objects;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that have a {@link LockOperation}, asking the {@link LockOperationSource} (as Spring's
 * {@code CacheOperationSourcePointcut} does). Matching parses the annotation, so an invalid one fails the creation
 * of the bean.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

    private final LockOperationSource operationSource;

    DistributedLockPointcut(LockOperationSource operationSource) {
        this.operationSource = Objects.requireNonNull(operationSource, "operationSource");
        // Skips classes that cannot carry the annotation (java.*, and so on) without looking at their methods.
        ClassFilter candidates = operationSource::isCandidateClass;
        setClassFilter(candidates);
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return operationSource.hasOperation(method, targetClass);
    }
}
