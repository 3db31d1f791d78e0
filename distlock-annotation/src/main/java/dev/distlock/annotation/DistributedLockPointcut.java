package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Objects;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that have a {@link LockOperation}, asking the {@link LockOperationSource} (as Spring's
 * {@code CacheOperationSourcePointcut} does). An invalid annotation is not reported here: thrown inside the
 * auto-proxy creator it would reach the user as "Unexpected AOP exception", its own message buried under bean
 * creation errors. {@link DistributedLockMethodValidator} reports it, as the one place that checks annotations.
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
        try {
            return operationSource.hasOperation(method, targetClass);
        }
        catch (InvalidLockAnnotationException ex) {
            // The method is annotated: should the check be switched off, calls still fail rather than run unlocked.
            return true;
        }
    }
}
