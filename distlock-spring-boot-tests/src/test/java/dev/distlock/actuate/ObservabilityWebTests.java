package dev.distlock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditListener;
import org.springframework.boot.actuate.autoconfigure.audit.AuditAutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code distlock} actuator endpoint, health contributor and meters over HTTP, in a web application on a
 * random port with the real engine and a real Redis that is paused and killed. Force release is on here
 * ({@code distlock.admin.force-release=true} and {@code management.endpoint.distlock.access=unrestricted}); the
 * sample application checks that it is off by default, {@link ForceReleaseAccessTests} that the property alone does
 * not open it.
 */
class ObservabilityWebTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static RedisServerProcess server;

    private static ConfigurableApplicationContext context;

    private static String baseUrl;

    /** One application for the class: starting a web server per test would dominate the run time. */
    @BeforeAll
    static void start() {
        server = redisServers.start();
        context = new SpringApplicationBuilder(WebApp.class).web(WebApplicationType.SERVLET)
                .properties(Map.of("server.port", "0", "spring.data.redis.host", server.host(),
                        "spring.data.redis.port", String.valueOf(server.port()), "spring.data.redis.timeout", "5s",
                        "management.endpoints.web.exposure.include", "health,distlock,metrics",
                        "management.endpoint.health.show-details", "always", "distlock.key-prefix", "web",
                        "distlock.lease-time", "900ms", "distlock.command-timeout", "800ms",
                        "distlock.admin.force-release", "true"))
                .properties(Map.of("management.endpoint.distlock.access", "unrestricted"))
                .run();
        baseUrl = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
    }

    @AfterEach
    void redisBackUp() throws Exception {
        if (!server.isRunning()) {
            server.start();
        }
        server.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/health/distlock").statusCode() == 200);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @Test
    void endpointListsHeldLocks() throws Exception {
        LockService locks = context.getBean(LockService.class);
        try (LockHandle stock = locks.lock("stock:42");
                LockHandle report = locks.lock("report", LockOptions.defaults().withLeaseTime(Duration.ofMinutes(1)))) {
            // Let the watchdog renew the watchdog lease at least once (lease 900 ms, renewed every 300 ms).
            await().atMost(Duration.ofSeconds(5)).until(() -> JsonPath.<Integer>read(
                    get("/actuator/distlock").body(), "$.locks[0].renewals") > 0);

            HttpResponse<String> response = get("/actuator/distlock");

            assertThat(response.statusCode()).isEqualTo(200);
            String json = response.body();
            assertThat(JsonPath.<Integer>read(json, "$.counts.held")).isEqualTo(2);
            assertThat(JsonPath.<Integer>read(json, "$.counts.watchdog")).isEqualTo(1);
            assertThat(JsonPath.<Integer>read(json, "$.counts.fixedLease")).isEqualTo(1);
            assertThat(JsonPath.<Integer>read(json, "$.counts.byLock.stock")).isEqualTo(1);
            assertThat(JsonPath.<List<String>>read(json, "$.locks[*].name")).containsExactly("stock:42", "report");
            assertThat(JsonPath.<Number>read(json, "$.locks[0].fencingToken").longValue())
                    .isEqualTo(stock.fencingToken());
            assertThat(JsonPath.<Boolean>read(json, "$.locks[0].watchdog")).isTrue();
            assertThat(JsonPath.<Number>read(json, "$.locks[0].leaseRemainingMillis").longValue()).isBetween(1L,
                    900L);
            assertThat(JsonPath.<Number>read(json, "$.locks[0].sinceLastRenewalMillis").longValue())
                    .isLessThan(900L);
            assertThat(JsonPath.<String>read(json, "$.locks[0].acquiredAt")).isNotBlank();
            assertThat(JsonPath.<Number>read(json, "$.locks[1].leaseRemainingMillis").longValue())
                    .isGreaterThan(30_000L);
            // Never renewed: the field is left out (the endpoint omits nulls).
            assertThat(JsonPath.<Map<String, Object>>read(json, "$.locks[1]")).doesNotContainKey("sinceLastRenewalMillis");
            assertThat(JsonPath.<Boolean>read(json, "$.watchdog.onTime")).isTrue();
        }
        String after = get("/actuator/distlock").body();
        assertThat(JsonPath.<Integer>read(after, "$.counts.held")).isZero();
        assertThat(JsonPath.<List<Object>>read(after, "$.locks")).isEmpty();
    }

    @Test
    void metricsAreServedWithGroupTagsOnly() throws Exception {
        context.getBean(LockService.class).lock("stock:7").unlock();

        HttpResponse<String> response = get("/actuator/metrics/distlock.acquire");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<List<String>>read(response.body(), "$.availableTags[?(@.tag == 'lock')].values[*]"))
                .containsExactly("stock");
        assertThat(get("/actuator/metrics/distlock.held").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/distlock.release").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/distlock.renewal").statusCode()).isEqualTo(200);
    }

    @Test
    void healthIsUpThenDownWhilePausedThenUpAgain() throws Exception {
        HttpResponse<String> up = get("/actuator/health/distlock");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(up.body(), "$.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(up.body(), "$.details.ping")).isEqualTo("PONG");
        assertThat(JsonPath.<Boolean>read(up.body(), "$.details.watchdog.onTime")).isTrue();

        server.pause();
        long start = System.nanoTime();
        HttpResponse<String> down = get("/actuator/health/distlock");
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(JsonPath.<String>read(down.body(), "$.status")).isEqualTo("DOWN");
        assertThat(JsonPath.<String>read(down.body(), "$.details.store")).isEqualTo("DOWN");
        assertThat(took).isLessThan(Duration.ofSeconds(3));
        assertThat(get("/actuator/health").statusCode()).isEqualTo(503);

        server.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/health/distlock").statusCode() == 200);
    }

    @Test
    void healthIsDownWhenTheWatchdogCannotRenewAndWhenRedisIsKilled() throws Exception {
        LockService locks = context.getBean(LockService.class);
        LockHandle held = locks.lock("stock:9");
        server.kill();

        // Renewals fail while Redis is gone: the watchdog falls behind, and PING fails too.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            HttpResponse<String> down = get("/actuator/health/distlock");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(JsonPath.<String>read(down.body(), "$.details.store")).isEqualTo("DOWN");
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> !held.isHeld());
        held.unlock();
    }

    @Test
    void aForceReleaseFreesALockHeldOnAnotherInstanceAndIsAudited() throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()));
        factory.afterPropertiesSet();
        factory.start();
        StoreLockService otherInstance = new StoreLockService(
                new RedisLockStore(factory, RedisLockConfig.defaults().withKeyPrefix("web")),
                LockConfig.defaults().withLeaseTime(Duration.ofMillis(900)), LockListener.NONE);
        otherInstance.start();
        try {
            LockHandle stuck = otherInstance.lock("stock:shelf/7");
            Instant before = Instant.now();

            assertThat(delete("/actuator/distlock/stock:shelf/7").statusCode()).isEqualTo(204);

            await().atMost(Duration.ofSeconds(5)).until(() -> !stuck.isHeld());
            try (LockHandle next = context.getBean(LockService.class).lock("stock:shelf/7")) {
                assertThat(next.fencingToken()).isGreaterThan(stuck.fencingToken());
            }
            assertThat(delete("/actuator/distlock/stock:shelf/7").statusCode()).as("free now").isEqualTo(404);
            List<AuditEvent> audited = context.getBean(AuditEventRepository.class).find(null, before,
                    DistlockEndpointWebExtension.AUDIT_TYPE);
            assertThat(audited).hasSize(2).allSatisfy(event -> {
                assertThat(event.getPrincipal()).isEqualTo("anonymous");
                assertThat(event.getData()).containsEntry("name", "stock:shelf/7");
            });
            assertThat(audited).extracting(event -> event.getData().get("released")).containsExactly(true, false);
        }
        finally {
            otherInstance.close();
            factory.destroy();
        }
    }

    @Test
    void aForceReleaseDuringAStoreHandOverEndsItAndAnswers204() throws Exception {
        // A release handed "stock:handed" to a waiter ("=<owner token>:<token>", see acquire.lua) that has not
        // confirmed it yet; the window is stretched here so that the request surely falls inside it.
        server.call("SET", "web:{stock:handed}", "=waiter-owner-token:1795815993093653", "PX", "30000");

        assertThat(delete("/actuator/distlock/stock:handed").statusCode()).as("a name being handed over is held")
                .isEqualTo(204);

        assertThat(server.call("EXISTS", "web:{stock:handed}")).as("the hand-over ended").isEqualTo(0L);
        try (LockHandle next = context.getBean(LockService.class).lock("stock:handed")) {
            assertThat(next.fencingToken()).isGreaterThan(1795815993093653L);
        }
    }

    private static HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).DELETE()
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A plain auto-configured web application (no {@code @SpringBootApplication}, no component scan). */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration(exclude = AuditAutoConfiguration.class)
    static class WebApp {

        /**
         * Records the force release's audit events. Boot's own audit auto-configuration also registers Spring
         * Security's audit listeners and so needs Spring Security, which this application does not have: the
         * recording listener is registered by hand instead.
         */
        @Bean
        InMemoryAuditEventRepository auditEvents() {
            return new InMemoryAuditEventRepository();
        }

        @Bean
        AuditListener auditListener(AuditEventRepository auditEvents) {
            return new AuditListener(auditEvents);
        }
    }
}
