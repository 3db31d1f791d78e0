package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.Objects;

import dev.distlock.LockOptions;

import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * One annotated method, parsed and validated once at start-up: the lock name, the parsed key expression, the
 * resolved options and what to do on timeout. Immutable.
 */
public final class LockOperation {

    private final Method method;

    private final Class<?> targetClass;

    private final String name;

    private final String keySource;

    private final Expression key;

    private final LockOptions options;

    private final OnTimeout onTimeout;

    /**
     * @param method the annotated method of the bean class
     * @param targetClass the bean class
     * @param name the lock group, not blank
     * @param keySource the key expression as written, "" for none
     * @param key the parsed key expression, {@code null} when {@code keySource} is ""
     * @param options the lock options (unset fields take the configured defaults)
     * @param onTimeout what to do when the lock is not acquired in time
     */
    public LockOperation(Method method, Class<?> targetClass, String name, String keySource, Expression key,
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
        this.options = Objects.requireNonNull(options, "options");
        this.onTimeout = Objects.requireNonNull(onTimeout, "onTimeout");
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

    /** @return the parsed key expression, or {@code null} when the method has one lock */
    public Expression key() {
        return key;
    }

    /** @return the lock options */
    public LockOptions options() {
        return options;
    }

    /** @return what to do when the lock is not acquired in time */
    public OnTimeout onTimeout() {
        return onTimeout;
    }

    /** @return {@code Class.method} for messages */
    public String describeMethod() {
        return targetClass.getName() + "." + method.getName();
    }

    @Override
    public String toString() {
        return "LockOperation[" + describeMethod() + ", name=" + name + ", key=" + keySource + ", " + options
                + ", onTimeout=" + onTimeout + "]";
    }
}
