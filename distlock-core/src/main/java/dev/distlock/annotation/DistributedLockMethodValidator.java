package dev.distlock.annotation;

import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Parses every {@link DistributedLock @DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails application start-up (naming the bean, class, method and attribute) instead of the
 * first call. The parsed operations stay cached in the {@link LockOperationSource}.
 */
public class DistributedLockMethodValidator implements BeanPostProcessor {

    private final LockOperationSource operationSource;

    private volatile @Nullable String firstAnnotatedMethod;

    private volatile @Nullable String firstMethodWithPermits;

    /**
     * @param operationSource the source whose parsing is validated (and whose cache this fills)
     */
    public DistributedLockMethodValidator(LockOperationSource operationSource) {
        this.operationSource = Objects.requireNonNull(operationSource, "operationSource");
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (!operationSource.isCandidateClass(targetClass)) {
            return bean;
        }
        try {
            ReflectionUtils.doWithMethods(targetClass, method -> {
                LockOperation operation = operationSource.getOperation(method, targetClass);
                if (operation == null) {
                    return;
                }
                String where = targetClass.getName() + "." + method.getName();
                if (firstAnnotatedMethod == null) {
                    firstAnnotatedMethod = where;
                }
                int permits = operation.options().permits();
                if (permits > 1 && firstMethodWithPermits == null) {
                    firstMethodWithPermits = "@DistributedLock(permits = " + permits + ") on " + where;
                }
            }, method -> !method.isBridge() && !method.isSynthetic() && method.getDeclaringClass() != Object.class);
        }
        catch (IllegalStateException ex) {
            throw new BeanCreationException(beanName, Objects.requireNonNullElse(ex.getMessage(), ex.toString()), ex);
        }
        return bean;
    }

    /** @return an annotated method of the beans validated so far ({@code Class.method}), if there is one */
    public Optional<String> annotatedMethod() {
        return Optional.ofNullable(firstAnnotatedMethod);
    }

    /**
     * @return an annotated method of the beans validated so far that asks for permits, as
     *         {@code @DistributedLock(permits = n) on Class.method}, if there is one
     */
    public Optional<String> methodWithPermits() {
        return Optional.ofNullable(firstMethodWithPermits);
    }
}
