package dev.distlock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The force release with Spring Security on the class path (this class runs in a surefire execution of its own, the
 * only one whose class path has Spring Security). The application's security lets every actuator request through
 * (a misconfiguration, or a management port thought to be private), so what refuses the unauthenticated DELETE is
 * distlock itself; an authenticated one is audited with its principal.
 */
class ForceReleaseSecurityTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext context;

    private static String baseUrl;

    @BeforeAll
    static void start() {
        RedisServerProcess server = redisServers.start();
        context = new SpringApplicationBuilder(SecuredApp.class).web(WebApplicationType.SERVLET)
                .properties(Map.of("server.port", "0", "spring.data.redis.host", server.host(),
                        "spring.data.redis.port", String.valueOf(server.port()),
                        "management.endpoints.web.exposure.include", "distlock",
                        "management.endpoint.distlock.access", "unrestricted", "distlock.key-prefix", "secured",
                        "distlock.admin.force-release", "true", "spring.security.user.name", "operator",
                        "spring.security.user.password", "s3cret"))
                .run();
        baseUrl = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @Test
    void anUnauthenticatedDeleteIsRefusedAndAnAuthenticatedOneIsAuditedWithItsPrincipal() throws Exception {
        LockService locks = context.getBean(LockService.class);
        LockHandle held = locks.lock("stock:secured");
        Instant before = Instant.now();

        HttpResponse<String> anonymous = delete("/actuator/distlock/stock:secured", null);

        assertThat(anonymous.statusCode()).as("a DELETE without a principal").isEqualTo(401);
        assertThat(anonymous.body()).contains("authenticated");
        assertThat(held.isHeld()).isTrue();

        assertThat(delete("/actuator/distlock/stock:secured", "operator:s3cret").statusCode()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(5)).until(() -> !held.isHeld());
        List<AuditEvent> audited = context.getBean(AuditEventRepository.class).find(null, before,
                DistlockEndpointWebExtension.AUDIT_TYPE);
        assertThat(audited).singleElement().satisfies(event -> {
            assertThat(event.getPrincipal()).isEqualTo("operator");
            assertThat(event.getData()).containsEntry("name", "stock:secured").containsEntry("released", true);
        });
        held.unlock();
    }

    private static HttpResponse<String> delete(String path, String credentials)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).DELETE()
                .timeout(Duration.ofSeconds(10));
        if (credentials != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A web application whose security lets any actuator request through, authenticating HTTP Basic when sent. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class SecuredApp {

        @Bean
        SecurityFilterChain management(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                    .httpBasic(Customizer.withDefaults()).csrf(AbstractHttpConfigurer::disable).build();
        }

        @Bean
        InMemoryAuditEventRepository auditEvents() {
            return new InMemoryAuditEventRepository();
        }
    }
}
