package dev.distlock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.OnLeaseLost;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.BeanResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link DistributedLock @DistributedLock} method in a scope of its lock: resolves the lock name (or names,
 * for a key that evaluates to a collection), acquires through {@link LockService#tryLockAll} (one lock, or all of
 * them in one global order), opens a {@link LockContext} scope around the invocation and releases afterwards.
 * Reentrancy and leases belong to the lock service.
 * <ul>
 * <li>A method returning {@code CompletableFuture}/{@code CompletionStage} keeps the lock until the returned stage
 * completes; the release then runs on a distlock thread, never on the thread that completed the stage (which may
 * be a client's event loop).</li>
 * <li>A method returning {@code Mono}/{@code Flux} is locked on each subscription, see {@link ReactorSupport}.</li>
 * <li>A Kotlin {@code suspend fun} holds the lock until it completes or its caller's coroutine is cancelled, without
 * blocking the caller's thread while it waits, see {@link CoroutineSupport}.</li>
 * </ul>
 * With {@link OnLeaseLost#INTERRUPT} the method's work is stopped at a loss: a blocking method's thread is
 * interrupted while it is in the method ({@link LockContext}'s scope does it), a returned stage completes
 * exceptionally and a subscription is cancelled ({@link LossStops}); the caller gets the
 * {@link LeaseLostException}.
 */
public class DistributedLockInterceptor implements MethodInterceptor, BeanFactoryAware {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final LockOperationSource operationSource;

    private final Supplier<LockService> lockService;

    private @Nullable BeanResolver beanResolver;

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
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopProxyUtils.ultimateTargetClass(target) : null;
        LockOperation operation = operationSource.getOperation(invocation.getMethod(), targetClass);
        if (operation == null || !operation.locks(invocation.getArguments(), target, beanResolver)) {
            return invocation.proceed();
        }
        List<String> lockNames = operation.lockNames(invocation.getArguments(), target, beanResolver);
        if (operation.returnKind() == ReturnKind.REACTIVE || operation.returnKind() == ReturnKind.SUSPENDING) {
            return ReactorSupport.lockEachSubscription(invocation, operation, lockNames, this::acquire);
        }
        MultiLockHandle locks = acquire(operation, lockNames);
        if (locks == null) {
            logger.debug("Skipped {}: {} not acquired", operation.describeMethod(), describe(lockNames));
            return SkipValues.emptyValue(operation.method().getReturnType());
        }
        Object result;
        try (LockContext.Scope scope = LockContext.enter(locks)) {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            LeaseLostException lost = releaseAfterFailure(locks, ex);
            if (lost != null) {
                throw lost;
            }
            throw ex;
        }
        if (result instanceof CompletionStage<?> stage) {
            return AsyncRelease.holdUntilComplete(stage, locks);
        }
        locks.unlock();
        return result;
    }

    /**
     * @return the handle, or {@code null} when the method is to be skipped
     * @throws LockTimeoutException when not acquired in time and the operation says {@link OnTimeout#THROW}
     */
    @Nullable MultiLockHandle acquire(LockOperation operation, List<String> lockNames) {
        LockService service = lockService.get();
        Optional<Duration> wait = operation.options().waitTime().or(service::defaultWaitTime);
        Optional<MultiLockHandle> acquired;
        try {
            acquired = service.tryLockAll(lockNames, operation.options());
        }
        catch (LockUnavailableException ex) {
            // The store's message names the store and what failed; the fields add what only the annotation knows.
            throw new LockUnavailableException(Objects.requireNonNullElse(ex.getMessage(), ex.toString()), lockNames,
                    wait.orElse(null), operation.shortMethodName(), ex);
        }
        if (acquired.isPresent()) {
            return acquired.get();
        }
        if (operation.onTimeout() == OnTimeout.SKIP) {
            return null;
        }
        throw new LockTimeoutException(describe(lockNames) + " of " + operation.describeMethod()
                + (lockNames.size() == 1 ? " not acquired within " : " not all acquired within ")
                + wait.map(LockException::millis).orElse("the configured distlock.wait-time")
                + LockTimeoutException.heldBy(service, lockNames), lockNames,
                wait.orElse(null), operation.shortMethodName());
    }

    private static String describe(List<String> lockNames) {
        return (lockNames.size() == 1) ? "Lock '" + lockNames.get(0) + "'" : "Locks " + lockNames;
    }

    /**
     * @return the exception the caller gets instead of the method's failure: the loss, when a lock's policy is
     *         {@link OnLeaseLost#INTERRUPT} (the failure most likely is how the interrupted method ended); else
     *         {@code null}, and what the release threw is suppressed in the failure
     */
    private static @Nullable LeaseLostException releaseAfterFailure(MultiLockHandle locks, Throwable failure) {
        try {
            locks.unlock();
        }
        catch (LeaseLostException ex) {
            if (LossStops.wanted(locks)) {
                ex.addSuppressed(failure);
                return ex;
            }
            failure.addSuppressed(ex);
        }
        catch (RuntimeException ex) {
            failure.addSuppressed(ex);
        }
        return null;
    }
}
