package dev.distlock.autoconfigure;

import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;

/**
 * Matches when no {@code @ControllerAdvice} of the application handles {@link LockTimeoutException} or
 * {@link LockUnavailableException} (with a handler for them or for a supertype): the application then answers them
 * itself, and distlock's handler stays out of the way.
 */
final class OnNoLockExceptionAdviceCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory == null) {
            return ConditionOutcome.match("no bean factory");
        }
        for (String name : beanFactory.getBeanNamesForAnnotation(ControllerAdvice.class)) {
            Class<?> type = beanFactory.getType(name, false);
            if (type == null || LockProblemDetailsHandler.class.isAssignableFrom(type)) {
                continue;
            }
            ExceptionHandlerMethodResolver resolver = new ExceptionHandlerMethodResolver(ClassUtils.getUserClass(type));
            if (resolver.resolveMethodByThrowable(new LockTimeoutException("probe")) != null
                    || resolver.resolveMethodByThrowable(new LockUnavailableException("probe")) != null) {
                return ConditionOutcome.noMatch("@ControllerAdvice '" + name + "' handles distlock's exceptions");
            }
        }
        return ConditionOutcome.match("no @ControllerAdvice handles distlock's exceptions");
    }
}
