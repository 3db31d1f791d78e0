package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import dev.distlock.InvalidPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Reports an invalid {@code distlock.*} setting as Spring Boot's Description / Action block naming the property:
 * an {@link InvalidPropertyException} (a value distlock refuses: a negative wait, a blank prefix, a malformed
 * Redlock URI, from the engine or a store module), or a value that does not even convert ({@code
 * distlock.wait-time=soon}). Other properties are left to Boot's own analyzers. Registered in
 * {@code META-INF/spring.factories}.
 */
public class DistlockPropertyFailureAnalyzer implements FailureAnalyzer, Ordered {

    private static final String WHERE = " in the application's configuration (application.properties or .yml, an "
            + "environment variable or a command-line argument)";

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        InvalidPropertyException invalid = find(failure, InvalidPropertyException.class);
        if (invalid != null) {
            return new FailureAnalysis("Invalid distlock configuration:\n\n    " + invalid.property() + " "
                    + invalid.problem(), "Change " + invalid.property() + WHERE + ".", failure);
        }
        BindException bind = find(failure, BindException.class);
        if (bind == null || !bind.getName().toString().startsWith("distlock.")) {
            return null;
        }
        ConfigurationProperty property = bind.getProperty();
        String name = bind.getName().toString();
        StringBuilder description = new StringBuilder("Invalid distlock configuration:\n\n    ").append(name);
        if (property != null) {
            description.append(" = '").append(property.getValue()).append('\'');
            if (property.getOrigin() != null) {
                description.append(" (from ").append(property.getOrigin()).append(')');
            }
        }
        description.append(" is not ").append(expected(bind.getTarget().getType().resolve()));
        Throwable reason = rootCause(bind);
        if (reason != bind && reason.getMessage() != null) {
            description.append(": ").append(reason.getMessage());
        }
        return new FailureAnalysis(description.toString(), "Set " + name + " to "
                + expected(bind.getTarget().getType().resolve()) + WHERE + ".", failure);
    }

    private static String expected(@Nullable Class<?> type) {
        if (type == Duration.class) {
            return "a duration such as 3s, 500ms or PT3S (a plain number means milliseconds)";
        }
        if (type != null && type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants())
                    .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining(", "));
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        return "a valid " + (type != null ? type.getSimpleName() : "value");
    }

    private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
