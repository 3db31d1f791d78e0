package dev.distlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on the JDBC store ({@code distlock.store=jdbc}): two application instances share the sample's H2 file
 * database for the stock and for the locks, no Redis anywhere (none is started, though the embedded Redis is left
 * on), and 500 concurrent buyers of a product with stock 100 buy exactly 100.
 */
class FlashSaleJdbcIntegrationTests {

    private static final Logger log = LoggerFactory.getLogger(FlashSaleJdbcIntegrationTests.class);

    private static final int BUYERS = 500;

    private static final int IN_FLIGHT = 32;

    private static final Pattern STOCK = Pattern.compile("\"stock\"\\s*:\\s*(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void twoInstancesLockingInTheirDatabaseSellExactlyTheStock(@TempDir Path data) throws Exception {
        int redisPort = RedisServerProcess.freePort();
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                instances.add(new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
                        "--distlock.store=jdbc", "--sample.data-dir=" + data, "--spring.data.redis.port=" + redisPort,
                        "--distlock.wait-time=20s", "--sample.daily-report.cron=-", "--spring.main.banner-mode=off"));
            }
            assertThat(RedisServerProcess.isListening(redisPort)).as("no Redis started for the JDBC store").isFalse();
            assertThat(instances).allSatisfy(instance -> assertThat(instance.getBean(LockStore.class))
                    .isInstanceOf(JdbcLockStore.class));
            List<String> urls = instances.stream().map(FlashSaleJdbcIntegrationTests::baseUrl).toList();
            send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/1/stock?stock=100"))
                    .PUT(HttpRequest.BodyPublishers.noBody()));

            Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
            ExecutorService buyers = Executors.newFixedThreadPool(IN_FLIGHT);
            List<Future<?>> done = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < BUYERS; i++) {
                URI deduct = URI.create(urls.get(i % urls.size()) + "/api/products/1/deduct?quantity=1");
                done.add(buyers.submit(() -> {
                    int status = send(HttpRequest.newBuilder(deduct).POST(HttpRequest.BodyPublishers.noBody()))
                            .statusCode();
                    statuses.merge(status, 1, Integer::sum);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            buyers.shutdown();
            String product = send(HttpRequest.newBuilder(URI.create(urls.get(1) + "/api/products/1")).GET()).body();
            Matcher m = STOCK.matcher(product);
            assertThat(m.find()).as(product).isTrue();
            int remaining = Integer.parseInt(m.group(1));
            int sold = statuses.getOrDefault(200, 0);
            int oversold = sold - (100 - remaining);
            log.info("JDBC store: sold {}, remaining {}, oversold {}, {} req/s ({})", sold, remaining, oversold,
                    Math.round(BUYERS / seconds), statuses);
            assertThat(statuses).containsOnlyKeys(200, 409);
            assertThat(sold).isEqualTo(100);
            assertThat(remaining).isZero();
            assertThat(oversold).isZero();
            Long lockRows = instances.get(0).getBean(JdbcTemplate.class).queryForObject(
                    "SELECT COUNT(*) FROM distlock_lock WHERE lock_name = 'stock:1' AND owner_token IS NULL", Long.class);
            assertThat(lockRows).as("the lock lived in the database and was released").isOne();
        }
        finally {
            for (int i = instances.size() - 1; i >= 0; i--) {
                instances.get(i).close();
            }
        }
    }

    private static String baseUrl(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
