package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.OnLeaseLost;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

/**
 * Reads {@link DistributedLock} (directly or as a meta-annotation, on the bean class's method or on the interface
 * method it implements) and turns it into a {@link LockOperation} once per method and bean class, like Spring's
 * {@code AnnotationCacheOperationSource}. {@code ${...}} placeholders in {@code name}, {@code waitTime} and
 * {@code leaseTime} are resolved from the Environment.
 */
public class AnnotationLockOperationSource implements LockOperationSource {

    // Marks "not annotated" in the cache, which cannot hold null values.
    private static final Object NONE = new Object();

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(256);

    private final PropertyResolver propertyResolver;

    private final Predicate<String> beanExists;

    private final LockExpressionEvaluator evaluator = new LockExpressionEvaluator();

    private static final String KEY_ACTION = "Fix the key expression: refer to the method's parameters by name "
            + "(#productId, with the code compiled with -parameters), by position (#p0 or #a0), to #root.args or to a "
            + "bean (@beanName); or leave key empty for one lock per method.";

    private static final String CONDITION_ACTION = "Fix the condition: a SpEL expression that gives true (lock) or "
            + "false (run without the lock) over the method's parameters (#name, #p0, #a0, #root.args) or beans "
            + "(@beanName); or leave condition empty to lock every call.";

    /**
     * @param propertyResolver resolves {@code ${...}} placeholders (the Environment)
     * @param beanExists tells whether a bean name referenced by a key ({@code @name}) exists
     */
    public AnnotationLockOperationSource(PropertyResolver propertyResolver, Predicate<String> beanExists) {
        this.propertyResolver = Objects.requireNonNull(propertyResolver, "propertyResolver");
        this.beanExists = Objects.requireNonNull(beanExists, "beanExists");
    }

    @Override
    public boolean isCandidateClass(Class<?> targetClass) {
        return AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class);
    }

    @Override
    public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return null;
        }
        Object cached = cache.computeIfAbsent(new MethodClassKey(method, targetClass), key -> {
            LockOperation operation = parse(method, targetClass);
            return operation != null ? operation : NONE;
        });
        return cached instanceof LockOperation operation ? operation : null;
    }

    private @Nullable LockOperation parse(Method method, @Nullable Class<?> targetClass) {
        Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
        Method specific = AopUtils.getMostSpecificMethod(method, userClass);
        if (specific.isSynthetic()) {
            // Compiler-generated, e.g. the static $suspendImpl body of an open Kotlin suspend fun, to which Kotlin
            // copies the function's annotations: the function itself is the one that is locked (bridge methods
            // were resolved to the bridged method above).
            return null;
        }
        // TYPE_HIERARCHY search: finds the annotation on the method, on a method it overrides or implements, and
        // through composed annotations with @AliasFor.
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation == null) {
            return null;
        }
        String where = userClass.getName() + "." + specific.getName();
        if (Modifier.isStatic(specific.getModifiers())) {
            throw invalid(where, "method", "a static method cannot be proxied",
                    "Make it an instance method of a Spring bean, or lock inside it with LockService.");
        }
        String unsupported = ReturnKind.unsupported(specific);
        if (unsupported != null) {
            throw invalid(where, "return type", unsupported, "Change the method's return type, or lock inside the "
                    + "method with LockService.executeWithLock.");
        }
        if (annotation.onTimeout() == OnTimeout.SKIP && ReturnKind.of(specific) == ReturnKind.SUSPENDING
                && !CoroutineSupport.mayReturnNull(specific)) {
            // A skipped suspend fun completes with null; a Kotlin caller would take it for a non-null value.
            throw invalid(where, "onTimeout", "SKIP makes the suspending function return null: declare its return "
                    + "type nullable (or Unit)", "Declare the function's return type nullable (or Unit), or use "
                    + "onTimeout = OnTimeout.THROW.");
        }
        String name = resolve(where, "name", annotation.name()).strip();
        if (name.isEmpty()) {
            name = userClass.getSimpleName() + "." + specific.getName();
        }
        String keySource = annotation.key().strip();
        Expression key = expression(where, "key", keySource, specific, userClass, KEY_ACTION);
        String conditionSource = annotation.condition().strip();
        Expression condition = expression(where, "condition", conditionSource, specific, userClass,
                CONDITION_ACTION);
        LockOptions options = LockOptions.defaults().withType(annotation.type());
        Duration waitTime = duration(where, "waitTime", annotation.waitTime(), false);
        if (waitTime != null) {
            options = options.withWaitTime(waitTime);
        }
        Duration leaseTime = duration(where, "leaseTime", annotation.leaseTime(), true);
        if (leaseTime != null) {
            options = options.withLeaseTime(leaseTime);
        }
        Duration holdAtLeast = duration(where, "holdAtLeast", annotation.holdAtLeast(), false);
        if (holdAtLeast != null) {
            try {
                options = options.withHoldAtLeast(holdAtLeast);
            }
            catch (IllegalArgumentException ex) {
                throw invalid(where, "holdAtLeast", "'" + annotation.holdAtLeast() + "' is longer than the fixed "
                        + "leaseTime '" + annotation.leaseTime() + "': the lease would end first", "Make leaseTime at "
                        + "least as long as holdAtLeast, or leave leaseTime empty for a watchdog-renewed lease.", ex);
            }
        }
        if (annotation.permits() < 1) {
            throw invalid(where, "permits", "must be at least 1: " + annotation.permits(),
                    "Set permits to 1 (a lock, the default) or more (that many holders at once).");
        }
        if (annotation.permits() > 1 && (annotation.type() == LockType.READ || annotation.type() == LockType.WRITE)) {
            throw invalid(where, "permits", annotation.permits() + " need type REENTRANT or FAIR, not "
                    + annotation.type(), "Use type = LockType.REENTRANT (or FAIR) with permits, or permits = 1 with "
                    + annotation.type() + ".");
        }
        options = options.withPermits(annotation.permits())
                .withOnLeaseLost(onLeaseLost(where, annotation.onLeaseLost()));
        return new LockOperation(specific, userClass, name, keySource, key, conditionSource, condition, evaluator,
                options, annotation.onTimeout());
    }

    /** @return the parsed expression, or {@code null} for "" */
    private @Nullable Expression expression(String where, String attribute, String source, Method method,
            Class<?> targetClass, String action) {
        if (source.isEmpty()) {
            return null;
        }
        try {
            return evaluator.parse(source, method, targetClass, beanExists);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(where, attribute, Objects.requireNonNullElse(ex.getMessage(), ex.toString()), action, ex);
        }
    }

    /** @return the policy, or {@code null} for "" ({@code distlock.on-lease-lost}) */
    private @Nullable OnLeaseLost onLeaseLost(String where, String value) {
        String resolved = resolve(where, "onLeaseLost", value).strip();
        if (resolved.isEmpty()) {
            return null;
        }
        for (OnLeaseLost policy : OnLeaseLost.values()) {
            if (policy.name().equalsIgnoreCase(resolved)) {
                return policy;
            }
        }
        throw invalid(where, "onLeaseLost", "'" + value + "' is not a lease-lost policy", "Set onLeaseLost to "
                + "\"log\", \"throw\" or \"interrupt\", or a ${property} holding one; \"\" takes "
                + "distlock.on-lease-lost.");
    }

    private String resolve(String where, String attribute, String value) {
        try {
            return propertyResolver.resolveRequiredPlaceholders(value);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(where, attribute, Objects.requireNonNullElse(ex.getMessage(), ex.toString()),
                    "Define the property that " + attribute + " refers to, or give it a default: "
                            + "\"${property:default}\".", ex);
        }
    }

    private @Nullable Duration duration(String where, String attribute, String value, boolean positive) {
        String resolved = resolve(where, attribute, value).strip();
        if (resolved.isEmpty()) {
            return null;
        }
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(resolved);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(where, attribute, "'" + value + "' is not a duration (use e.g. \"3s\", \"500ms\", \"PT3S\" "
                    + "or a number of milliseconds)", durationAction(attribute), ex);
        }
        if (duration.isNegative() || (positive && duration.toMillis() < 1)) {
            throw invalid(where, attribute, "'" + value + "' must be " + (positive ? "at least 1ms" : "zero or positive"),
                    durationAction(attribute), null);
        }
        return duration;
    }

    private static String durationAction(String attribute) {
        return "Set " + attribute + " to a duration such as \"3s\", \"500ms\" or \"PT3S\", a number of milliseconds "
                + "or a ${property} holding one; \"\" takes the default" + (attribute.equals("waitTime")
                        ? " (distlock.wait-time)." : attribute.equals("leaseTime")
                                ? " (a watchdog-renewed lease of distlock.lease-time)." : ".");
    }

    private static InvalidLockAnnotationException invalid(String where, String attribute, String problem,
            String action) {
        return invalid(where, attribute, problem, action, null);
    }

    private static InvalidLockAnnotationException invalid(String where, String attribute, String problem,
            String action, @Nullable Throwable cause) {
        return new InvalidLockAnnotationException(where, attribute, problem, action, cause);
    }
}
