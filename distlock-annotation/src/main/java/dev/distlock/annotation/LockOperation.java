package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.distlock.LockOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * One annotated method, parsed and validated once at start-up: the lock name, the parsed key and condition
 * expressions, the
 * resolved options, what to do on timeout and how the return value is held. Immutable.
 */
public final class LockOperation {

    private final Method method;

    private final Class<?> targetClass;

    private final String name;

    private final String keySource;

    private final @Nullable Expression key;

    private final String conditionSource;

    private final @Nullable Expression condition;

    private final LockExpressionEvaluator evaluator;

    private final LockOptions options;

    private final OnTimeout onTimeout;

    private final ReturnKind returnKind;

    LockOperation(Method method, Class<?> targetClass, String name, String keySource, @Nullable Expression key,
            String conditionSource, @Nullable Expression condition, LockExpressionEvaluator evaluator,
            LockOptions options, OnTimeout onTimeout) {
        this.method = Objects.requireNonNull(method, "method");
        this.targetClass = Objects.requireNonNull(targetClass, "targetClass");
        if (!StringUtils.hasText(name)) {
            throw new IllegalArgumentException("name must not be blank");
        }
        this.name = name;
        this.keySource = Objects.requireNonNull(keySource, "keySource");
        if (keySource.isEmpty() != (key == null)) {
            throw new IllegalArgumentException("key and keySource must be given together");
        }
        this.key = key;
        this.conditionSource = Objects.requireNonNull(conditionSource, "conditionSource");
        if (conditionSource.isEmpty() != (condition == null)) {
            throw new IllegalArgumentException("condition and conditionSource must be given together");
        }
        this.condition = condition;
        this.evaluator = Objects.requireNonNull(evaluator, "evaluator");
        this.options = Objects.requireNonNull(options, "options");
        this.onTimeout = Objects.requireNonNull(onTimeout, "onTimeout");
        this.returnKind = ReturnKind.of(method);
    }

    /** @return the annotated method of the bean class */
    public Method method() {
        return method;
    }

    /** @return the bean class */
    public Class<?> targetClass() {
        return targetClass;
    }

    /** @return the lock group: the lock name without key */
    public String name() {
        return name;
    }

    /** @return the key expression as written, "" when the method has one lock */
    public String keySource() {
        return keySource;
    }

    /** @return the condition expression as written, "" when every call is locked */
    public String conditionSource() {
        return conditionSource;
    }

    /**
     * Whether this call is locked: the {@link DistributedLock#condition() condition} evaluated over it, or true
     * without one.
     *
     * @param args the call's arguments
     * @param target the bean instance
     * @param beanResolver resolves {@code @beanName} in the condition, may be {@code null}
     * @return false when the method is to run without the lock
     * @throws dev.distlock.LockException when the condition fails or evaluates to neither true nor false
     */
    public boolean locks(Object[] args, @Nullable Object target, @Nullable BeanResolver beanResolver) {
        Expression expression = condition;
        return expression == null || evaluator.condition(this, expression, args, target, beanResolver);
    }

    /** @return the lock options */
    public LockOptions options() {
        return options;
    }

    /** @return what to do when the lock is not acquired in time */
    public OnTimeout onTimeout() {
        return onTimeout;
    }

    /** @return how the method's return value is held */
    ReturnKind returnKind() {
        return returnKind;
    }

    /**
     * The lock names of one call: {@code name + ":" + key}, or just {@code name} without a key; one name per
     * element when the key evaluates to a collection or an array (the locks are then taken together, see
     * {@link dev.distlock.LockService#tryLockAll}).
     *
     * @param args the call's arguments
     * @param target the bean instance
     * @param beanResolver resolves {@code @beanName} in the key, may be {@code null}
     * @return the lock names, at least one
     * @throws dev.distlock.LockException when the key fails, or evaluates to {@code null}, a blank string, an empty
     *         collection or a collection with a {@code null} or blank element
     */
    public List<String> lockNames(Object[] args, @Nullable Object target, @Nullable BeanResolver beanResolver) {
        Expression expression = key;
        if (expression == null) {
            return List.of(name);
        }
        List<String> keys = evaluator.evaluate(this, expression, args, target, beanResolver);
        if (keys.size() == 1) {
            return List.of(name + ":" + keys.get(0));
        }
        List<String> names = new ArrayList<>(keys.size());
        for (String element : keys) {
            names.add(name + ":" + element);
        }
        return names;
    }

    /** @return {@code Class.method} for messages */
    public String describeMethod() {
        return targetClass.getName() + "." + method.getName();
    }

    /** @return {@code SimpleClassName.methodName}, as exceptions' {@code method()} and the default name give it */
    public String shortMethodName() {
        return targetClass.getSimpleName() + "." + method.getName();
    }

    @Override
    public String toString() {
        return "LockOperation[" + describeMethod() + ", name=" + name + ", key=" + keySource
                + (conditionSource.isEmpty() ? "" : ", condition=" + conditionSource) + ", " + options
                + ", onTimeout=" + onTimeout + "]";
    }
}
