package dev.distlock.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Registered in {@code META-INF/spring.factories}: gives test classes annotated (or meta-annotated, or enclosing
 * {@code @Nested} tests) with {@link DistlockTest @DistlockTest} the properties of the embedded Redis.
 */
final class DistlockTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        return TestContextAnnotationUtils.hasAnnotation(testClass, DistlockTest.class)
                ? new DistlockTestContextCustomizer() : null;
    }
}
