package dev.distlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.stream.Stream;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flash sale of the sample's integration tests, over HTTP: sample instances started in this JVM (separate
 * contexts with their own web servers, lock services and pools), the stock of product 1 set to 100, buyers sent
 * round-robin to the instances with 32 requests in flight, and the stock read back.
 */
final class FlashSale implements AutoCloseable {

    /** Buyers per sale. */
    static final int BUYERS = 500;

    private static final int IN_FLIGHT = 32;

    private static final int STOCK_BEFORE = 100;

    private static final Pattern STOCK = Pattern.compile("\"stock\"\\s*:\\s*(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    /**
     * Starts two instances with these arguments. The first starts the embedded servers the others join, so they
     * are closed in reverse order.
     *
     * @param args command-line arguments (they override application.properties) besides the test defaults
     * @return the sale
     */
    static FlashSale onTwoInstances(String... args) {
        FlashSale sale = new FlashSale();
        String[] all = Stream.concat(Stream.of("--server.port=0", "--sample.daily-report.cron=-",
                "--spring.main.banner-mode=off",
                // Generous: the tests are about who sells, not about timeouts on a busy machine.
                "--distlock.wait-time=20s"), Stream.of(args)).toArray(String[]::new);
        try {
            for (int i = 0; i < 2; i++) {
                sale.instances.add(new SpringApplicationBuilder(SampleApplication.class).run(all));
            }
        }
        catch (RuntimeException ex) {
            sale.close();
            throw ex;
        }
        return sale;
    }

    /** @return the running instances, the first one first */
    List<ConfigurableApplicationContext> instances() {
        return instances;
    }

    /**
     * @param path a path of the instance's HTTP API
     * @param instance which instance
     * @return the response to a GET
     * @throws Exception when the request fails
     */
    HttpResponse<String> get(int instance, String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(baseUrl(instances.get(instance)) + path)).GET());
    }

    /**
     * @return what the buyers got and what stock is left
     * @throws Exception when a request fails or the sale takes longer than two minutes
     */
    Result run() throws Exception {
        List<String> urls = instances.stream().map(FlashSale::baseUrl).toList();
        send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/1/stock?stock=" + STOCK_BEFORE))
                .PUT(HttpRequest.BodyPublishers.noBody()));
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        ExecutorService buyers = Executors.newFixedThreadPool(IN_FLIGHT);
        long start = System.nanoTime();
        try {
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
                f.get(120, TimeUnit.SECONDS);
            }
        }
        finally {
            buyers.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String product = get(urls.size() - 1, "/api/products/1").body();
        Matcher m = STOCK.matcher(product);
        assertThat(m.find()).as(product).isTrue();
        return new Result(Map.copyOf(statuses), Integer.parseInt(m.group(1)), seconds);
    }

    /** Closes the instances, the first one (which owns the embedded servers) last. */
    @Override
    public void close() {
        for (int i = instances.size() - 1; i >= 0; i--) {
            instances.get(i).close();
        }
        instances.clear();
    }

    private static String baseUrl(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @param statuses count of each HTTP status
     * @param remaining stock after the sale
     * @param seconds how long the buyers took
     */
    record Result(Map<Integer, Integer> statuses, int remaining, double seconds) {

        int sold() {
            return statuses.getOrDefault(200, 0);
        }

        /** Units sold that the stock never lost. */
        int oversold() {
            return sold() - (STOCK_BEFORE - remaining);
        }

        /** Checks the promise: exactly the stock sold, every other buyer told it is sold out, nothing oversold. */
        void assertExactlyTheStockSold() {
            assertThat(statuses).containsOnlyKeys(200, 409);
            assertThat(sold()).isEqualTo(STOCK_BEFORE);
            assertThat(statuses.get(409)).isEqualTo(BUYERS - STOCK_BEFORE);
            assertThat(remaining).isZero();
            assertThat(oversold()).as("oversold").isZero();
        }
    }
}
