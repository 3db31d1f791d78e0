/*
 * Flash-sale load client for the distlock sample. Plain JDK, run as a single source file:
 *
 *   java FlashSaleClient.java --urls http://127.0.0.1:8080,http://127.0.0.1:8081 [--buyers 1000]
 *        [--concurrency 64] [--product 1] [--quantity 1] [--stock 100] [--label text] [--max-seconds 120]
 *        [--fail-on-oversell]
 *
 * Resets the product's stock, sends one deduct request per buyer, spread round-robin over the instances, with at
 * most --concurrency requests in flight, then prints sold / remaining / oversold, the status codes and latency
 * percentiles. Only loopback addresses are accepted; the load is bounded in count (--buyers) and time
 * (--max-seconds, and 10 s per request).
 */

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class FlashSaleClient {

    private static final Pattern STOCK = Pattern.compile("\"stock\"\\s*:\\s*(-?\\d+)");

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parse(args);
        List<String> urls = Arrays.stream(opts.getOrDefault("urls", "http://127.0.0.1:8080").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).map(s -> s.replaceAll("/+$", "")).toList();
        for (String url : urls) {
            String host = URI.create(url).getHost();
            if (!"127.0.0.1".equals(host) && !"localhost".equals(host)) {
                fail("only loopback instances are accepted, not " + url);
            }
        }
        int buyers = bounded(opts, "buyers", 1000, 1, 100_000);
        int concurrency = bounded(opts, "concurrency", 64, 1, 1000);
        long product = bounded(opts, "product", 1, 1, Integer.MAX_VALUE);
        int quantity = bounded(opts, "quantity", 1, 1, 1_000_000);
        int stock = bounded(opts, "stock", 100, 0, 1_000_000_000);
        int maxSeconds = bounded(opts, "max-seconds", 120, 1, 3600);
        String label = opts.getOrDefault("label", "flash sale");

        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String reset = send(http, HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/" + product
                + "/stock?stock=" + stock)).PUT(HttpRequest.BodyPublishers.noBody()), 200);

        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicLongArray latencies = new AtomicLongArray(buyers);
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long start = System.nanoTime();
        for (int i = 0; i < buyers; i++) {
            int buyer = i;
            String url = urls.get(i % urls.size()) + "/api/products/" + product + "/deduct?quantity=" + quantity;
            pool.execute(() -> {
                long t0 = System.nanoTime();
                String outcome;
                try {
                    HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(url))
                            .timeout(REQUEST_TIMEOUT).POST(HttpRequest.BodyPublishers.noBody()).build(),
                            HttpResponse.BodyHandlers.discarding());
                    outcome = String.valueOf(response.statusCode());
                }
                catch (Exception ex) {
                    outcome = "io-error";
                }
                latencies.set(buyer, System.nanoTime() - t0);
                outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                done.incrementAndGet();
            });
        }
        pool.shutdown();
        boolean finished = pool.awaitTermination(maxSeconds, TimeUnit.SECONDS);
        if (!finished) {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        String after = send(http, HttpRequest.newBuilder(URI.create(urls.get(0) + "/api/products/" + product))
                .GET(), 200);
        int remaining = stockOf(after);
        int ok = count(outcomes, "200");
        int sold = ok * quantity;
        // Units handed out that the stock never lost: each one a unit sold twice.
        int oversold = sold - (stockOf(reset) - remaining);
        int soldOut = count(outcomes, "409");
        int errors = done.get() - ok - soldOut;

        long[] sorted = new long[done.get()];
        int n = 0;
        for (int i = 0; i < buyers && n < sorted.length; i++) {
            if (latencies.get(i) > 0) {
                sorted[n++] = latencies.get(i);
            }
        }
        sorted = Arrays.copyOf(sorted, n);
        Arrays.sort(sorted);

        System.out.println();
        System.out.println("== " + label + " ==");
        System.out.printf("instances     : %d (%s)%n", urls.size(), String.join(", ", urls));
        System.out.printf("buyers        : %d sent in %.1f s (%.0f req/s, %d in flight)%s%n", done.get(), seconds,
                done.get() / seconds, concurrency, finished ? "" : ", STOPPED at --max-seconds");
        System.out.printf("stock         : %d before, %d remaining%n", stockOf(reset), remaining);
        System.out.printf("sold          : %d (HTTP 200)%n", sold);
        System.out.printf("sold out      : %d (HTTP 409)%n", soldOut);
        System.out.printf("errors        : %d %s%n", errors, describeErrors(outcomes));
        System.out.printf("OVERSOLD      : %d%s%n", oversold,
                oversold > 0 ? "  <-- units sold that the stock never lost (lost updates)" : "");
        System.out.printf("latency ms    : p50 %s, p90 %s, p99 %s, max %s%n", pct(sorted, 50), pct(sorted, 90),
                pct(sorted, 99), pct(sorted, 100));
        if (opts.containsKey("fail-on-oversell") && oversold != 0) {
            System.exit(1);
        }
    }

    private static String describeErrors(Map<String, AtomicInteger> outcomes) {
        Map<String, Integer> other = new TreeMap<>();
        outcomes.forEach((k, v) -> {
            if (!k.equals("200") && !k.equals("409")) {
                other.put(k, v.get());
            }
        });
        return other.isEmpty() ? "" : other.toString().replace("{", "(").replace("}", ")");
    }

    private static int count(Map<String, AtomicInteger> outcomes, String key) {
        AtomicInteger value = outcomes.get(key);
        return value == null ? 0 : value.get();
    }

    private static String pct(long[] sorted, int percentile) {
        if (sorted.length == 0) {
            return "-";
        }
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return String.format("%.1f", sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6);
    }

    private static String send(HttpClient http, HttpRequest.Builder request, int expected) throws Exception {
        HttpResponse<String> response = http.send(request.timeout(REQUEST_TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != expected) {
            fail(response.request().method() + " " + response.request().uri() + " answered "
                    + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static int stockOf(String json) {
        Matcher m = STOCK.matcher(json);
        if (!m.find()) {
            fail("no stock in " + json);
        }
        return Integer.parseInt(m.group(1));
    }

    private static int bounded(Map<String, String> opts, String name, int dflt, int min, int max) {
        String raw = opts.get(name);
        if (raw == null) {
            return dflt;
        }
        try {
            int value = Integer.parseInt(raw);
            if (value < min || value > max) {
                fail("--" + name + " must be between " + min + " and " + max + ", was " + raw);
            }
            return value;
        }
        catch (NumberFormatException ex) {
            fail("--" + name + " must be a number, was " + raw);
            return dflt;
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                fail("unexpected argument " + args[i]);
            }
            String name = args[i].substring(2);
            if (name.equals("fail-on-oversell")) {
                opts.put(name, "true");
            }
            else if (i + 1 < args.length) {
                opts.put(name, args[++i]);
            }
            else {
                fail("--" + name + " needs a value");
            }
        }
        return opts;
    }

    private static void fail(String message) {
        System.err.println("flash-sale client: " + message);
        System.exit(2);
    }
}
