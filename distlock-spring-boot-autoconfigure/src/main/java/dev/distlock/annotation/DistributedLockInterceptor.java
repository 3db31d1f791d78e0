package dev.distlock.annotation;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.BeanResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link DistributedLock @DistributedLock} method under its lock: resolves the lock name, acquires through
 * {@link LockService}, invokes the method and releases in {@code finally}. All locking semantics (reentrancy,
 * binding the handle to the call chain for {@link LockContext}, leases) belong to the lock service.
 * <p>
 * For a method returning {@code CompletableFuture}/{@code CompletionStage} (or Reactor {@code Mono}/{@code Flux})
 * the lock stays held until the returned value completes, fails or is cancelled, and is detached from the calling
 * thread when the method returns.
 */
public class DistributedLockInterceptor implements MethodInterceptor, BeanFactoryAware {

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockOperationSource operationSource;

    private final Supplier<LockService> lockService;

    private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

    private BeanResolver beanResolver;

    /**
     * @param operationSource finds the operation of a method
     * @param lockService the lock service, looked up on first use (so creating the advisor early does not create
     *        the lock service before the post-processors that instrument it)
     */
    public DistributedLockInterceptor(LockOperationSource operationSource, Supplier<LockService> lockService) {
        this.operationSource = Objects.requireNonNull(operationSource, "operationSource");
        this.lockService = SingletonSupplier.of(Objects.requireNonNull(lockService, "lockService"));
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopProxyUtils.ultimateTargetClass(target) : null;
        LockOperation operation = operationSource.getOperation(invocation.getMethod(), targetClass);
        if (operation == null) {
            return invocation.proceed();
        }
        String lockName = lockName(operation, invocation.getArguments(), target);
        Class<?> returnType = operation.method().getReturnType();
        Optional<LockHandle> acquired = lockService.get().tryLock(lockName, operation.options());
        if (acquired.isEmpty()) {
            if (operation.onTimeout() == OnTimeout.SKIP) {
                if (logger.isDebugEnabled()) {
                    logger.debug("Skipped " + operation.describeMethod() + ": lock '" + lockName + "' not acquired");
                }
                return SkipValues.emptyValue(returnType);
            }
            throw new LockTimeoutException("Lock '" + lockName + "' of " + operation.describeMethod()
                    + " not acquired within " + operation.options().waitTime().map(Object::toString)
                            .orElse("the configured distlock.wait-time"));
        }
        LockHandle handle = acquired.get();
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            releaseAfterFailure(handle, ex);
            throw ex;
        }
        if (isAsync(returnType) && result != null) {
            // The work goes on after the method returned: the caller's thread must not see the lock as its own.
            LockContext.detach(handle);
            return (result instanceof CompletionStage<?> stage) ? holdUntilComplete(stage, handle)
                    : ReactorSupport.holdUntilTerminated(result, handle);
        }
        handle.unlock();
        return result;
    }

    private String lockName(LockOperation operation, Object[] args, Object target) {
        if (operation.key() == null) {
            return operation.name();
        }
        return operation.name() + ":" + evaluator.evaluate(operation, args, target, beanResolver);
    }

    private static boolean isAsync(Class<?> returnType) {
        return returnType == CompletableFuture.class || returnType == CompletionStage.class
                || (SkipValues.REACTOR_PRESENT && ReactorSupport.isReactive(returnType));
    }

    /**
     * Returns a future that completes like the method's, after the lock was released, so that whoever sees it
     * complete can take the lock at once. Cancelling it cancels the method's future and releases the lock.
     */
    private static CompletableFuture<Object> holdUntilComplete(CompletionStage<?> stage, LockHandle handle) {
        CompletableFuture<Object> returned = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            Throwable failure = error;
            try {
                handle.unlock();
            }
            catch (RuntimeException ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
            if (failure != null) {
                returned.completeExceptionally(failure);
            }
            else {
                returned.complete(value);
            }
        });
        returned.whenComplete((value, error) -> {
            if (returned.isCancelled()) {
                cancel(stage);
                releaseQuietly(handle);
            }
        });
        return returned;
    }

    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        }
        catch (UnsupportedOperationException ex) {
            // A stage that cannot be cancelled keeps running; the lock is released anyway, as for any cancel.
        }
    }

    private static void releaseAfterFailure(LockHandle handle, Throwable failure) {
        try {
            handle.unlock();
        }
        catch (RuntimeException ex) {
            failure.addSuppressed(ex);
        }
    }

    private static void releaseQuietly(LockHandle handle) {
        try {
            handle.unlock();
        }
        catch (RuntimeException ex) {
            logger.warn("Releasing lock '" + handle.name() + "' after cancellation failed", ex);
        }
    }
}
