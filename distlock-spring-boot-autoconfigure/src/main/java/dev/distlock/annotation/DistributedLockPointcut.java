package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Objects;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Matches the methods that have a {@link LockOperation}. Matching parses the annotation, so an invalid one fails
 * the creation of the bean.
 */
public class DistributedLockPointcut extends StaticMethodMatcherPointcut {

    private final LockOperationSource operationSource;

    /**
     * @param operationSource finds the operation of a method
     */
    public DistributedLockPointcut(LockOperationSource operationSource) {
        this.operationSource = Objects.requireNonNull(operationSource, "operationSource");
        // Skips classes that cannot carry the annotation (java.*, and so on) without looking at their methods.
        setClassFilter(new CandidateClassFilter());
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return operationSource.getOperation(method, targetClass) != null;
    }

    private static final class CandidateClassFilter implements ClassFilter {

        @Override
        public boolean matches(Class<?> clazz) {
            return AnnotationUtils.isCandidateClass(clazz, DistributedLock.class);
        }
    }
}
