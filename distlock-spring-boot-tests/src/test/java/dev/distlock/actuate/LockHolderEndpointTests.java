package dev.distlock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /actuator/distlock/{name}} answers from the store, whichever instance holds the lock: two applications
 * on one Redis, one with {@code distlock.instance-id} set, the other with the default made from
 * {@code spring.application.name}, host and pid; each tells who holds the other's lock, 404 once it is free. The
 * endpoint's default (read-only) access is enough.
 */
class LockHolderEndpointTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext orders;

    private static ConfigurableApplicationContext billing;

    @BeforeAll
    static void start() {
        RedisServerProcess server = redisServers.start();
        orders = start(server, Map.of("distlock.instance-id", "orders-1"));
        billing = start(server, Map.of("spring.application.name", "billing"));
    }

    private static ConfigurableApplicationContext start(RedisServerProcess server, Map<String, String> own) {
        Map<String, Object> properties = new HashMap<>(Map.of("server.port", "0", "spring.data.redis.host",
                server.host(), "spring.data.redis.port", String.valueOf(server.port()),
                "management.endpoints.web.exposure.include", "distlock", "distlock.key-prefix", "holders"));
        properties.putAll(own);
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).properties(properties).run();
    }

    @AfterAll
    static void stop() {
        orders.close();
        billing.close();
    }

    @Test
    void anotherInstanceTellsWhoHoldsALock() throws Exception {
        try (LockHandle held = orders.getBean(LockService.class).lock("report/daily")) {
            HttpResponse<String> answer = get(billing, "report/daily");
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(answer.body(), "$.name")).isEqualTo("report/daily");
            assertThat(JsonPath.<String>read(answer.body(), "$.holder")).isEqualTo("orders-1");
            assertThat(JsonPath.<Number>read(answer.body(), "$.fencingToken").longValue())
                    .isEqualTo(held.fencingToken());
            assertThat(JsonPath.<Number>read(answer.body(), "$.leaseRemainingMillis").longValue())
                    .isPositive().isLessThanOrEqualTo(30_000);
            assertThat(JsonPath.<Integer>read(answer.body(), "$.waiters")).isZero();
        }
        assertThat(get(billing, "report/daily").statusCode()).as("free").isEqualTo(404);
    }

    @Test
    void theDefaultInstanceIdIsTheApplicationNameHostAndPid() throws Exception {
        try (LockHandle held = billing.getBean(LockService.class).lock("invoice:7")) {
            HttpResponse<String> answer = get(orders, "invoice:7");
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(answer.body(), "$.holder")).startsWith("billing@")
                    .endsWith(":" + ProcessHandle.current().pid());
        }
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext context, String name)
            throws IOException, InterruptedException {
        String baseUrl = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/distlock/" + name))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A plain auto-configured web application. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
