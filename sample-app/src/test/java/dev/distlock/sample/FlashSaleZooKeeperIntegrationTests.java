package dev.distlock.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.spi.LockStore;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's promise on ZooKeeper, end to end: two application instances started with
 * {@code --distlock.store=zookeeper} — the first starts the in-process ZooKeeper on the configured port, the second
 * joins it — share one database; 500 buyers hit them concurrently for a product with stock 100, and exactly 100 are
 * sold.
 */
class FlashSaleZooKeeperIntegrationTests {

    private static final int BUYERS = 500;

    private static final int IN_FLIGHT = 32;

    private static final Pattern STOCK = Pattern.compile("\"stock\"\\s*:\\s*(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dataDir;

    @Test
    void withTheLockOnZooKeeperTwoInstancesSellExactlyTheStock() throws Exception {
        int zooKeeperPort = freePort();
        String database = "jdbc:h2:mem:flash-zk-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                instances.add(startInstance(zooKeeperPort, database));
            }
            for (ConfigurableApplicationContext instance : instances) {
                assertThat(instance.getBean(LockStore.class)).isInstanceOf(ZooKeeperLockStore.class);
            }
            List<String> urls = instances.stream().map(FlashSaleZooKeeperIntegrationTests::baseUrl).toList();
            send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/1/stock?stock=100"))
                    .PUT(HttpRequest.BodyPublishers.noBody()));
            assertThat(send(HttpRequest.newBuilder(URI.create(urls.get(1) + "/actuator/health")).GET())
                    .statusCode()).as("healthy without any Redis").isEqualTo(200);

            Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
            ExecutorService buyers = Executors.newFixedThreadPool(IN_FLIGHT);
            List<Future<?>> done = new ArrayList<>();
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
                f.get(60, TimeUnit.SECONDS);
            }
            buyers.shutdown();
            String product = send(HttpRequest.newBuilder(URI.create(urls.get(1) + "/api/products/1")).GET()).body();
            Matcher m = STOCK.matcher(product);
            assertThat(m.find()).as(product).isTrue();
            int remaining = Integer.parseInt(m.group(1));
            int sold = statuses.getOrDefault(200, 0);
            assertThat(statuses).containsOnlyKeys(200, 409);
            assertThat(sold).isEqualTo(100);
            assertThat(statuses.get(409)).isEqualTo(BUYERS - 100);
            assertThat(remaining).isZero();
            assertThat(sold - (100 - remaining)).as("oversold").isZero();
        }
        finally {
            for (int i = instances.size() - 1; i >= 0; i--) { // the first instance owns the ZooKeeper server
                instances.get(i).close();
            }
        }
        assertThat(isListening(zooKeeperPort)).as("the embedded ZooKeeper stopped with its instance").isFalse();
    }

    private ConfigurableApplicationContext startInstance(int zooKeeperPort, String database) {
        // Command-line arguments, so that they override application.properties.
        return new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--distlock.store=zookeeper",
                        "--distlock.zookeeper.connect-string=127.0.0.1:" + zooKeeperPort,
                        "--sample.data-dir=" + dataDir, "--spring.datasource.url=" + database,
                        // Generous: the test is about who sells, not about timeouts on a busy machine.
                        "--distlock.wait-time=20s", "--sample.daily-report.cron=-", "--spring.main.banner-mode=off");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static boolean isListening(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static String baseUrl(ConfigurableApplicationContext context) {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return "http://127.0.0.1:" + port;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
