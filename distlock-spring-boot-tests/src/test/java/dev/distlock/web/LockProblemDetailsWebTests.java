package dev.distlock.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.JsonPath;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.autoconfigure.LockProblemDetailsHandler;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.problem-details.enabled}: a locked endpoint whose lock is held elsewhere, in a web application on a
 * random port with a real Redis, answers 503 with a problem detail and {@code Retry-After} when it is on, 500 when it
 * is off (the default), and the application's own answer when it has its own advice for the exception.
 */
class LockProblemDetailsWebTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static RedisServerProcess server;

    @BeforeAll
    static void redis() {
        server = redisServers.start();
    }

    private static ConfigurableApplicationContext start(Class<?> application, String... properties) {
        SpringApplicationBuilder builder = new SpringApplicationBuilder(application).web(WebApplicationType.SERVLET)
                .properties(Map.of("server.port", "0", "spring.data.redis.host", server.host(),
                        "spring.data.redis.port", String.valueOf(server.port()), "spring.main.banner-mode", "off"));
        return builder.run(properties);
    }

    private static HttpResponse<String> post(ConfigurableApplicationContext context, String path) throws Exception {
        String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Holds the lock on another thread, as another instance would. */
    private static LockHandle holdElsewhere(ConfigurableApplicationContext context, String name) {
        LockService locks = context.getBean(LockService.class);
        return CompletableFuture.supplyAsync(() -> locks.lock(name)).join();
    }

    @Test
    void lockTimeoutIs503WithProblemDetailAndRetryAfter() throws Exception {
        try (ConfigurableApplicationContext context = start(App.class, "--distlock.problem-details.enabled=true",
                "--distlock.problem-details.retry-after=2500ms")) {
            assertThat(context.getBeansOfType(LockProblemDetailsHandler.class)).hasSize(1);
            LockHandle held = holdElsewhere(context, "stock:1");

            HttpResponse<String> response = post(context, "/stock/1/deduct");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).contains("3");
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(JsonPath.<Integer>read(response.body(), "$.status")).isEqualTo(503);
            assertThat(JsonPath.<String>read(response.body(), "$.title")).isEqualTo("Lock not acquired in time");
            // Written for the client: the lock and the wait, never the holder, the method or the store's error.
            assertThat(JsonPath.<String>read(response.body(), "$.detail"))
                    .isEqualTo("Lock 'stock:1' was not acquired within 100 ms; nothing ran")
                    .doesNotContain(context.getBean(StoreLockService.class).config().instanceId());
            assertThat(JsonPath.<List<String>>read(response.body(), "$.locks")).containsExactly("stock:1");
            assertThat(JsonPath.<Integer>read(response.body(), "$.waitMillis")).isEqualTo(100);
            held.unlock();

            assertThat(post(context, "/stock/1/deduct").statusCode()).isEqualTo(200);

            HttpResponse<String> down = post(context, "/down");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.headers().firstValue("Retry-After")).contains("3");
            assertThat(JsonPath.<String>read(down.body(), "$.title")).isEqualTo("Lock store unavailable");
            assertThat(JsonPath.<List<String>>read(down.body(), "$.locks")).containsExactly("report");
            assertThat(JsonPath.<String>read(down.body(), "$.detail"))
                    .isEqualTo("The lock store did not answer; nothing ran");
        }
    }

    @Test
    void aLostLockAndARefusedWriteAre503LockLost() throws Exception {
        try (ConfigurableApplicationContext context = start(App.class, "--distlock.problem-details.enabled=true")) {
            HttpResponse<String> stale = post(context, "/stale");
            assertThat(stale.statusCode()).isEqualTo(503);
            assertThat(stale.headers().firstValue("Retry-After")).contains("1");
            assertThat(JsonPath.<String>read(stale.body(), "$.title")).isEqualTo("Lock lost");
            assertThat(JsonPath.<String>read(stale.body(), "$.detail"))
                    .isEqualTo("A newer lock holder wrote first; this write changed nothing");
            assertThat(JsonPath.<Integer>read(stale.body(), "$.fencingToken")).isEqualTo(5);
            assertThat(JsonPath.<Integer>read(stale.body(), "$.seenToken")).isEqualTo(9);

            HttpResponse<String> lost = post(context, "/lost");
            assertThat(lost.statusCode()).isEqualTo(503);
            assertThat(JsonPath.<String>read(lost.body(), "$.title")).isEqualTo("Lock lost");
            assertThat(JsonPath.<String>read(lost.body(), "$.detail"))
                    .isEqualTo("The lock was lost while the request ran");
        }
    }

    @Test
    void offByDefault() throws Exception {
        try (ConfigurableApplicationContext context = start(App.class)) {
            assertThat(context.getBeansOfType(LockProblemDetailsHandler.class)).isEmpty();
            LockHandle held = holdElsewhere(context, "stock:2");

            assertThat(post(context, "/stock/2/deduct").statusCode()).isEqualTo(500);
            held.unlock();
        }
    }

    @Test
    void backsOffForTheApplicationsOwnAdvice() throws Exception {
        try (ConfigurableApplicationContext context = start(AppWithOwnAdvice.class,
                "--distlock.problem-details.enabled=true")) {
            assertThat(context.getBeansOfType(LockProblemDetailsHandler.class)).isEmpty();
            LockHandle held = holdElsewhere(context, "stock:3");

            HttpResponse<String> response = post(context, "/stock/3/deduct");

            assertThat(response.statusCode()).isEqualTo(429);
            assertThat(response.body()).isEqualTo("busy: [stock:3]");
            held.unlock();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({ StockService.class, StockController.class })
    static class App {
    }

    @Configuration(proxyBeanMethods = false)
    @Import(OwnAdvice.class)
    static class AppWithOwnAdvice extends App {
    }

    /** A locked service, as an application has one. */
    static class StockService {

        @DistributedLock(name = "stock", key = "#productId", waitTime = "100ms")
        public String deduct(long productId) {
            return "deducted " + productId;
        }
    }

    @RestController
    static class StockController {

        private final StockService stock;

        StockController(StockService stock) {
            this.stock = stock;
        }

        @PostMapping("/stock/{id}/deduct")
        String deduct(@PathVariable("id") long id) {
            return stock.deduct(id);
        }

        @PostMapping("/stale")
        String stale() {
            throw new StaleTokenException("accounts row 2", 5, 9L);
        }

        @PostMapping("/lost")
        String lost() {
            throw new LeaseLostException("The lease of lock 'report' (fencing token 7) was lost");
        }

        @PostMapping("/down")
        String down() {
            throw new LockUnavailableException("RedisLockStore[distlock] did not answer", List.of("report"), null,
                    null, null);
        }
    }

    @RestControllerAdvice
    static class OwnAdvice {

        @ExceptionHandler
        ResponseEntity<String> busy(LockTimeoutException ex) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("busy: " + ex.lockNames());
        }
    }
}
