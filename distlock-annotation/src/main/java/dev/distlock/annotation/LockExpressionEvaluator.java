package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import dev.distlock.LockException;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ObjectUtils;

/**
 * Parses and evaluates the expressions of {@link DistributedLock#key()} and {@link DistributedLock#condition()} with
 * a {@link MethodBasedEvaluationContext}, as Spring's cache abstraction does for its keys and conditions:
 * {@code #paramName}, {@code #p0}/{@code #a0}, {@code #root.*} and {@code @beanName}. One instance per operation
 * source; parsed expressions are cached per method and expression.
 */
final class LockExpressionEvaluator extends CachedExpressionEvaluator {

    private static final Pattern INDEXED_ARGUMENT = Pattern.compile("[pa]\\d+");

    private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

    /**
     * Parses a key or condition expression and checks every {@code #variable} it reads against the method's parameters, so
     * that a typo or missing parameter names fail at start-up rather than on the first call.
     *
     * @param source the expression
     * @param method the annotated method of the bean class
     * @param targetClass the bean class
     * @param beanExists tells whether a {@code @beanName} reference resolves
     * @return the parsed expression
     * @throws IllegalArgumentException saying what is wrong
     */
    Expression parse(String source, Method method, Class<?> targetClass, Predicate<String> beanExists) {
        Expression expression;
        try {
            expression = getExpression(expressions, new AnnotatedElementKey(method, targetClass), source);
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException("'" + source + "' is not a valid SpEL expression: "
                    + ex.getMessage(), ex);
        }
        if (expression instanceof SpelExpression spel) {
            List<String> problems = new ArrayList<>();
            check(spel.getAST(), method, beanExists, problems);
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("'" + source + "' " + String.join("; ", problems));
            }
        }
        return expression;
    }

    private void check(SpelNode node, Method method, Predicate<String> beanExists, List<String> problems) {
        if (node instanceof VariableReference) {
            checkVariable(node.toStringAST().substring(1), method, problems);
        }
        else if (node instanceof BeanReference) {
            String ast = node.toStringAST();
            // "@name" or "&name" (factory bean); strip the marker and any quotes.
            String name = ast.substring(1).replace("'", "").replace("\"", "");
            if (ast.startsWith("@") && !beanExists.test(name)) {
                problems.add("refers to bean '" + name + "', which does not exist");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            check(node.getChild(i), method, beanExists, problems);
        }
    }

    private void checkVariable(String variable, Method method, List<String> problems) {
        if (variable.equals("root") || variable.equals("this")) {
            return;
        }
        int count = method.getParameterCount();
        if (INDEXED_ARGUMENT.matcher(variable).matches()) {
            if (Integer.parseInt(variable.substring(1)) >= count) {
                problems.add("refers to #" + variable + " but the method has " + count + " parameter(s)");
            }
            return;
        }
        String[] names = getParameterNameDiscoverer().getParameterNames(method);
        if (names == null && count > 0) {
            problems.add("refers to #" + variable + " but the parameter names of the method are not available: "
                    + "compile with '-parameters' (maven-compiler-plugin <parameters>true</parameters>) "
                    + "or use #p0/#a0");
        }
        else if (names == null || !Arrays.asList(names).contains(variable)) {
            problems.add("refers to #" + variable + ", which is not a parameter of the method (parameters: "
                    + (names == null ? "none" : String.join(", ", names)) + ")");
        }
    }

    /**
     * Evaluates the key of one call.
     *
     * @param operation the operation
     * @param key its parsed key expression
     * @param args the call's arguments
     * @param target the bean instance
     * @param beanResolver resolves {@code @beanName}, may be {@code null}
     * @return the key, or the keys when the expression evaluates to a collection or an array (one lock each); never
     *         empty, none blank
     * @throws LockException when the expression fails, or evaluates to {@code null}, a blank string, an empty
     *         collection or array, or one with a {@code null} or blank element
     */
    List<String> evaluate(LockOperation operation, Expression key, Object[] args, @Nullable Object target,
            @Nullable BeanResolver beanResolver) {
        Object value = value(operation, "key", operation.keySource(), key, args, target, beanResolver);
        if (value != null && value.getClass().isArray()) {
            value = Arrays.asList(ObjectUtils.toObjectArray(value));
        }
        if (value instanceof Collection<?> values) {
            if (values.isEmpty()) {
                throw invalid(operation, "an empty " + (value instanceof List<?> ? "list" : "collection"));
            }
            List<String> keys = new ArrayList<>(values.size());
            for (Object element : values) {
                keys.add(key(operation, element, "a collection with a null element",
                        "a collection with a blank element"));
            }
            return keys;
        }
        return List.of(key(operation, value, "null", "a blank string"));
    }

    /**
     * Evaluates the condition of one call. Fails closed: a condition that fails, or gives neither true nor false,
     * throws, so that the method never runs unlocked by mistake.
     *
     * @return whether the call is locked
     * @throws LockException when the expression fails or evaluates to {@code null} or to something that is not a
     *         boolean
     */
    boolean condition(LockOperation operation, Expression condition, Object[] args, @Nullable Object target,
            @Nullable BeanResolver beanResolver) {
        Object value = value(operation, "condition", operation.conditionSource(), condition, args, target,
                beanResolver);
        if (value instanceof Boolean locked) {
            return locked;
        }
        throw new LockException("@DistributedLock condition '" + operation.conditionSource() + "' of "
                + operation.describeMethod() + " evaluated to " + (value == null ? "null" : "a "
                        + value.getClass().getSimpleName()) + ", not true or false; the method was not called");
    }

    /**
     * @return the expression's value over the call
     * @throws LockException naming the attribute, its source and the method when the expression fails
     */
    private @Nullable Object value(LockOperation operation, String attribute, String source, Expression expression,
            Object[] args, @Nullable Object target, @Nullable BeanResolver beanResolver) {
        try {
            return expression.getValue(context(operation, args, target, beanResolver));
        }
        catch (RuntimeException ex) {
            throw new LockException("@DistributedLock " + attribute + " '" + source + "' of "
                    + operation.describeMethod() + " could not be evaluated: " + ex.getMessage()
                    + "; the method was not called", ex);
        }
    }

    private MethodBasedEvaluationContext context(LockOperation operation, Object[] args, @Nullable Object target,
            @Nullable BeanResolver beanResolver) {
        Method method = operation.method();
        LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, operation.targetClass());
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
                getParameterNameDiscoverer());
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        return context;
    }

    private static String key(LockOperation operation, @Nullable Object value, String whenNull, String whenBlank) {
        String evaluated = (value != null) ? value.toString() : null;
        if (evaluated == null || evaluated.isBlank()) {
            throw invalid(operation, evaluated == null ? whenNull : whenBlank);
        }
        return evaluated;
    }

    private static LockException invalid(LockOperation operation, String what) {
        return new LockException("@DistributedLock key '" + operation.keySource() + "' of "
                + operation.describeMethod() + " evaluated to " + what + "; the method was not called");
    }
}
