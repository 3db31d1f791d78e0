package dev.distlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's promise, end to end: two application instances (separate contexts with their own web servers,
 * lock services and connection pools) share one real Redis and one database; 500 buyers hit them concurrently for
 * a product with stock 100. With distlock exactly 100 are sold; without it the same sale may oversell.
 */
class FlashSaleIntegrationTests {

    private static final Logger log = LoggerFactory.getLogger(FlashSaleIntegrationTests.class);

    private static final int BUYERS = 500;

    private static final int IN_FLIGHT = 32;

    private static final Pattern STOCK = Pattern.compile("\"stock\"\\s*:\\s*(\\d+)");

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void withTheLockTwoInstancesSellExactlyTheStock() throws Exception {
        Sale sale = runSale(true);
        assertThat(sale.statuses()).containsOnlyKeys(200, 409);
        assertThat(sale.sold()).isEqualTo(100);
        assertThat(sale.statuses().get(409)).isEqualTo(BUYERS - 100);
        assertThat(sale.remaining()).isZero();
        assertThat(sale.oversold()).isZero();
    }

    @Test
    void withoutTheLockTheSameSaleMayOversell() throws Exception {
        Sale sale = runSale(false);
        log.info("Without the lock: sold {}, remaining {}, oversold {} ({})", sale.sold(), sale.remaining(),
                sale.oversold(), sale.statuses());
        // Only reported: overselling depends on timing. Lost updates can only leave too much stock, never too little.
        assertThat(sale.statuses().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(BUYERS);
        assertThat(sale.oversold()).isNotNegative();
    }

    private Sale runSale(boolean locked) throws Exception {
        RedisServerProcess server = redis.start();
        String database = "jdbc:h2:mem:flash-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                instances.add(startInstance(server, database, locked));
            }
            List<String> urls = instances.stream().map(FlashSaleIntegrationTests::baseUrl).toList();
            send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/1/stock?stock=100"))
                    .PUT(HttpRequest.BodyPublishers.noBody()));

            Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
            AtomicInteger sent = new AtomicInteger();
            ExecutorService buyers = Executors.newFixedThreadPool(IN_FLIGHT);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < BUYERS; i++) {
                URI deduct = URI.create(urls.get(i % urls.size()) + "/api/products/1/deduct?quantity=1");
                done.add(buyers.submit(() -> {
                    int status = send(HttpRequest.newBuilder(deduct).POST(HttpRequest.BodyPublishers.noBody()))
                            .statusCode();
                    statuses.merge(status, 1, Integer::sum);
                    sent.incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            buyers.shutdown();
            String product = send(HttpRequest.newBuilder(URI.create(urls.get(1) + "/api/products/1")).GET()).body();
            Matcher m = STOCK.matcher(product);
            assertThat(m.find()).as(product).isTrue();
            return new Sale(Map.copyOf(statuses), Integer.parseInt(m.group(1)));
        }
        finally {
            for (ConfigurableApplicationContext instance : instances) {
                instance.close();
            }
        }
    }

    private static ConfigurableApplicationContext startInstance(RedisServerProcess server, String database,
            boolean locked) {
        // Command-line arguments, so that they override application.properties.
        return new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--sample.embedded-redis=false",
                        "--spring.data.redis.host=" + server.host(), "--spring.data.redis.port=" + server.port(),
                        "--spring.datasource.url=" + database, "--distlock.enabled=" + locked,
                        // Generous: the test is about who sells, not about timeouts on a busy machine.
                        "--distlock.wait-time=20s", "--sample.daily-report.cron=-", "--spring.main.banner-mode=off");
    }

    private static String baseUrl(ConfigurableApplicationContext context) {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return "http://127.0.0.1:" + port;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @param statuses count of each HTTP status
     * @param remaining stock after the sale
     */
    private record Sale(Map<Integer, Integer> statuses, int remaining) {

        int sold() {
            return statuses.getOrDefault(200, 0);
        }

        /** Units sold that the stock never lost. */
        int oversold() {
            return sold() - (100 - remaining);
        }
    }
}
