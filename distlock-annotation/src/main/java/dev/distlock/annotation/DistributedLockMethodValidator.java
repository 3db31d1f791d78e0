package dev.distlock.annotation;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Parses every {@link DistributedLock @DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails application start-up (naming the bean, class, method and attribute) instead of the
 * first call: the one place that reports an {@link InvalidLockAnnotationException}, which
 * {@link DistributedLockFailureAnalyzer} turns into Boot's Description / Action report. The parsed operations stay
 * cached in the {@link LockOperationSource}.
 * <p>
 * Once the singletons exist it logs, at INFO and once, the annotated methods that rely on the default lock name
 * ({@code SimpleClassName.methodName}): renaming the class or method changes that name, so during a rolling deploy
 * old and new instances would lock different names.
 */
public class DistributedLockMethodValidator implements BeanPostProcessor, SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockMethodValidator.class);

    private final LockOperationSource operationSource;

    private volatile @Nullable String firstAnnotatedMethod;

    private volatile @Nullable String firstMethodWithPermits;

    /** Methods ({@code Class.method}) whose lock name is the default, sorted for a stable log line. */
    private final Set<String> defaultNames = new ConcurrentSkipListSet<>();

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
                DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(operation.method(),
                        DistributedLock.class);
                if (annotation != null && annotation.name().isBlank()) {
                    defaultNames.add(operation.shortMethodName());
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

    @Override
    public void afterSingletonsInstantiated() {
        if (!defaultNames.isEmpty()) {
            log.info("@DistributedLock methods without a name lock '<SimpleClassName>.<methodName>', which changes "
                    + "when the class or method is renamed (during a rolling deploy old and new instances would then "
                    + "lock different names); set name = \"...\" on: {}", String.join(", ", defaultNames));
        }
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
