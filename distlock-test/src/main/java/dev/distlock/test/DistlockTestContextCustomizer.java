package dev.distlock.test;

import java.util.Map;

import dev.distlock.embedded.RedisAddress;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Puts {@code spring.data.redis.host} and {@code spring.data.redis.port} of the embedded Redis first among the
 * context's property sources, as {@code @DynamicPropertySource} would.
 * <p>
 * Every instance is equal: there is one server per JVM, so test classes that differ only in where
 * {@code @DistlockTest} is declared share a cached context, and one with {@code @DistlockTest} never shares a
 * context with one without it.
 */
final class DistlockTestContextCustomizer implements ContextCustomizer {

    /** The name of the property source, e.g. to find it in the environment. */
    static final String PROPERTY_SOURCE_NAME = "distlockTestRedis";

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        RedisAddress redis = DistlockTestRedis.address();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME,
                Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other != null && other.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }

    @Override
    public String toString() {
        return "DistlockTestContextCustomizer[embedded Redis]";
    }
}
