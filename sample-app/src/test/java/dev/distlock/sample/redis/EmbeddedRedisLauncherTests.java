package dev.distlock.sample.redis;

import java.util.Arrays;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded Redis of the sample: started by the first instance on {@code spring.data.redis.port}, joined by
 * later ones, stopped with the instance that started it, and never started when another Redis is configured.
 * Uses a bare application context (the launcher comes from {@code spring.factories}, as in the sample) so that
 * each start takes milliseconds.
 */
class EmbeddedRedisLauncherTests {

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    @Test
    void firstInstanceStartsRedisLaterOnesJoinAndTheFirstStopsIt() {
        int port = LoopbackPorts.free();
        try (ConfigurableApplicationContext first = start("spring.data.redis.port=" + port)) {
            assertThat(LoopbackPorts.isListening(port)).as("started by the first instance").isTrue();
            try (ConfigurableApplicationContext second = start("spring.data.redis.port=" + port)) {
                assertThat(LoopbackPorts.isListening(port)).isTrue();
            }
            assertThat(LoopbackPorts.isListening(port)).as("a joining instance does not stop it").isTrue();
        }
        assertThat(LoopbackPorts.isListening(port)).as("stopped with the owner").isFalse();
    }

    @Test
    void usesTheRedisAlreadyListeningAndLeavesItRunning() {
        RedisServerProcess existing = redis.start();
        try (ConfigurableApplicationContext app = start("spring.data.redis.port=" + existing.port())) {
            assertThat(existing.isRunning()).isTrue();
        }
        assertThat(LoopbackPorts.isListening(existing.port())).isTrue();
    }

    @Test
    void startsNothingWhenTurnedOff() {
        int port = LoopbackPorts.free();
        try (ConfigurableApplicationContext app = start("spring.data.redis.port=" + port,
                "sample.embedded-redis=false")) {
            assertThat(LoopbackPorts.isListening(port)).isFalse();
        }
    }

    @Test
    void startsNothingWhenAnotherRedisIsConfigured() {
        int port = LoopbackPorts.free();
        try (ConfigurableApplicationContext app = start("spring.data.redis.port=" + port,
                "spring.data.redis.host=redis.example.com")) {
            assertThat(LoopbackPorts.isListening(port)).isFalse();
        }
        try (ConfigurableApplicationContext app = start("spring.data.redis.port=" + port,
                "spring.data.redis.url=redis://127.0.0.1:" + port)) {
            assertThat(LoopbackPorts.isListening(port)).isFalse();
        }
        try (ConfigurableApplicationContext app = start("spring.data.redis.port=" + port,
                "spring.data.redis.password=secret")) {
            assertThat(LoopbackPorts.isListening(port)).isFalse();
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        // Command-line arguments, so that they override the sample's application.properties.
        String[] args = Arrays.stream(properties).map(p -> "--" + p).toArray(String[]::new);
        return new SpringApplicationBuilder(Empty.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off")
                .run(args);
    }

    @Configuration(proxyBeanMethods = false)
    static class Empty {
    }
}
