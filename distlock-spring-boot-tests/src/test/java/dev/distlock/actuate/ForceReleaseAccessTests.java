package dev.distlock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
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
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditListener;
import org.springframework.boot.actuate.autoconfigure.audit.AuditAutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The force release's access without Spring Security: {@code distlock.admin.force-release=true} alone does not make
 * the DELETE reachable, since the {@code distlock} endpoint's default access is read-only; listing held locks works.
 * {@code management.endpoint.distlock.access=unrestricted} is the second, explicit step
 * ({@link ObservabilityWebTests} takes it).
 */
class ForceReleaseAccessTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext context;

    private static String baseUrl;

    @BeforeAll
    static void start() {
        RedisServerProcess server = redisServers.start();
        context = new SpringApplicationBuilder(ReadOnlyApp.class).web(WebApplicationType.SERVLET)
                .properties(Map.of("server.port", "0", "spring.data.redis.host", server.host(),
                        "spring.data.redis.port", String.valueOf(server.port()),
                        "management.endpoints.web.exposure.include", "distlock", "distlock.key-prefix", "access",
                        "distlock.admin.force-release", "true"))
                .run();
        baseUrl = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @Test
    void theForceReleasePropertyAloneLeavesTheEndpointReadOnly() throws Exception {
        try (LockHandle held = context.getBean(LockService.class).lock("stock:1")) {
            HttpResponse<String> listed = send(HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/distlock")));
            assertThat(listed.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<List<String>>read(listed.body(), "$.locks[*].name")).containsExactly("stock:1");

            HttpResponse<String> delete = send(HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/distlock/stock:1"))
                    .DELETE());

            assertThat(delete.statusCode()).as("DELETE without management.endpoint.distlock.access=unrestricted")
                    .isNotEqualTo(204).isBetween(400, 499);
            assertThat(held.isHeld()).isTrue();
            assertThat(context.getBean(AuditEventRepository.class).find(null, null,
                    DistlockEndpointWebExtension.AUDIT_TYPE)).as("no force release ran").isEmpty();
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A plain auto-configured web application; audit events recorded by hand, as in ObservabilityWebTests. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration(exclude = AuditAutoConfiguration.class)
    static class ReadOnlyApp {

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
