package dev.distlock.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;

import dev.distlock.embedded.RedisAddress;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistlockTest @DistlockTest} through the plain Spring TestContext framework (no Spring Boot): the embedded
 * Redis's address wins over the test's own properties, and the customizer keeps the context cache valid.
 */
@SpringJUnitConfig(DistlockTestTests.Config.class)
@DistlockTest
@TestPropertySource(properties = { "spring.data.redis.host=redis.invalid", "spring.data.redis.port=1" })
class DistlockTestTests {

    @Value("${spring.data.redis.host}")
    String host;

    @Value("${spring.data.redis.port}")
    int port;

    @Autowired
    ConfigurableEnvironment environment;

    private final ContextCustomizerFactory factory = new DistlockTestContextCustomizerFactory();

    @Test
    void pointsSpringDataRedisAtTheRunningEmbeddedServerAboveEveryOtherProperty() {
        assertThat(new RedisAddress(host, port)).isEqualTo(DistlockTestRedis.address());
        assertThat(environment.getPropertySources().iterator().next().getName())
                .isEqualTo(DistlockTestContextCustomizer.PROPERTY_SOURCE_NAME);
        assertThat(DistlockTestRedis.call("PING")).isEqualTo("PONG");
    }

    @Test
    void isRegisteredWithTheTestContextFramework() {
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(ContextCustomizerFactory.class))
                .hasAtLeastOneElementOfType(DistlockTestContextCustomizerFactory.class);
    }

    @Test
    void customizesAnnotatedAndMetaAnnotatedTestClassesOnly() {
        ContextCustomizer direct = factory.createContextCustomizer(DistlockTestTests.class, List.of());
        ContextCustomizer meta = factory.createContextCustomizer(MetaAnnotated.class, List.of());
        ContextCustomizer inherited = factory.createContextCustomizer(Inheriting.class, List.of());
        ContextCustomizer nested = factory.createContextCustomizer(Inner.class, List.of());
        assertThat(direct).isNotNull();
        assertThat(meta).isNotNull();
        assertThat(inherited).isNotNull();
        assertThat(nested).isNotNull();
        assertThat(factory.createContextCustomizer(NotAnnotated.class, List.of())).isNull();
        // One server per JVM: every customizer is the same cache key, whichever class it came from.
        assertThat(direct).isEqualTo(meta).isEqualTo(inherited).isEqualTo(nested).hasSameHashCodeAs(meta)
                .isNotEqualTo(new Object());
    }

    @Test
    void bringsBackAServerThatATestStopped() {
        RedisAddress before = DistlockTestRedis.address();
        DistlockTestRedis.server().stop();
        assertThat(DistlockTestRedis.address()).isEqualTo(before);
        assertThat(DistlockTestRedis.call("PING")).isEqualTo("PONG");
    }

    /** Stands for a {@code @Nested} test class, which gets the enclosing class's configuration. */
    class Inner {
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
    }

    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @DistlockTest
    @interface IntegrationTest {
    }

    @IntegrationTest
    static class MetaAnnotated {
    }

    static class Inheriting extends MetaAnnotated {
    }

    static class NotAnnotated {
    }
}
