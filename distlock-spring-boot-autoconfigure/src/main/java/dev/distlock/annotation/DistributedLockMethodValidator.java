package dev.distlock.annotation;

import java.util.Objects;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Parses every {@link DistributedLock @DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails application start-up (naming the bean, class, method and attribute) instead of the
 * first call. The parsed operations stay cached in the {@link LockOperationSource}.
 */
public class DistributedLockMethodValidator implements BeanPostProcessor {

    private final LockOperationSource operationSource;

    /**
     * @param operationSource the source whose parsing is validated (and whose cache this fills)
     */
    public DistributedLockMethodValidator(LockOperationSource operationSource) {
        this.operationSource = Objects.requireNonNull(operationSource, "operationSource");
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
            return bean;
        }
        try {
            ReflectionUtils.doWithMethods(targetClass, method -> operationSource.getOperation(method, targetClass),
                    method -> !method.isBridge() && !method.isSynthetic() && method.getDeclaringClass() != Object.class);
        }
        catch (IllegalStateException ex) {
            throw new BeanCreationException(beanName, ex.getMessage(), ex);
        }
        return bean;
    }
}
