package dev.distlock.annotation;

import java.util.Objects;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies a {@link DistributedLockInterceptor} to the methods a {@link DistributedLockPointcut} matches, at the
 * order {@code distlock.aspect-order} (outside the transaction advice by default).
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient DistributedLockPointcut pointcut;

    private final transient DistributedLockInterceptor interceptor;

    /**
     * @param operationSource finds the operation of a method
     * @param interceptor the lock advice
     * @param order the advice order; lower runs further outside
     */
    public DistributedLockAdvisor(LockOperationSource operationSource, DistributedLockInterceptor interceptor,
            int order) {
        this.pointcut = new DistributedLockPointcut(operationSource);
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
