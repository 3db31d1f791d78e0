package dev.distlock.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample app's HTTP API as workload K uses it, on one instance: its health, the live instances, the flash sale
 * ({@code POST /api/demo/flash-sale}) and the lock timeline ({@code GET /api/demo/timeline}), merged over every
 * instance in the shared database, so one instance answers for all.
 */
final class SampleClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private final String baseUrl;

    /**
     * @param baseUrl the instance, e.g. {@code http://127.0.0.1:8081}
     */
    SampleClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /**
     * What one flash sale came to, as the sample answers it.
     *
     * @param locked whether the buyers used the locked endpoint
     * @param startedAt µs since the epoch, before the stock was reset
     * @param finishedAt µs since the epoch, after the last answer
     * @param sold answers 200
     * @param soldOut answers 409
     * @param errors every other answer, by status
     * @param oversold units sold that the stock never lost
     * @param instances how many instances received buyers
     */
    record Sale(boolean locked, long startedAt, long finishedAt, int sold, int soldOut, Map<String, Integer> errors,
            int oversold, int instances) {

        /** @return the sale's wall time, seconds */
        double seconds() {
            return (finishedAt - startedAt) / 1e6;
        }

        /** @return answers other than 200 and 409 */
        int errorCount() {
            return errors.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /** @return whether {@code /actuator/health} answers 200 */
    boolean healthy() {
        try {
            return send(HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/health"))
                    .timeout(Duration.ofSeconds(5)).GET()).statusCode() == 200;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /**
     * @return how many instances the shared database lists as live
     * @throws IOException when the instance does not answer
     */
    int liveInstances() throws IOException {
        int live = 0;
        for (JsonNode instance : get("/api/demo/instances")) {
            if (instance.path("live").asBoolean()) {
                live++;
            }
        }
        return live;
    }

    /**
     * Runs one flash sale on product 1 over every live instance.
     *
     * @param locked whether the buyers use the lock
     * @param stock the stock to reset the product to
     * @param buyers requests, one unit each
     * @param concurrency requests in flight
     * @return what it came to
     * @throws IOException when the sale fails
     */
    Sale flashSale(boolean locked, int stock, int buyers, int concurrency) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "/api/demo/flash-sale?lock="
                + locked + "&product=1&stock=" + stock + "&buyers=" + buyers + "&concurrency=" + concurrency))
                .timeout(Duration.ofMinutes(2)).POST(HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() != 200) {
            throw new IOException("Flash sale answered " + response.statusCode() + ": " + response.body());
        }
        JsonNode sale = JSON.readTree(response.body());
        Map<String, Integer> errors = new TreeMap<>();
        sale.path("errors").properties().forEach(e -> errors.put(e.getKey(), e.getValue().asInt()));
        return new Sale(sale.path("locked").asBoolean(), sale.path("startedAt").asLong(),
                sale.path("finishedAt").asLong(), sale.path("sold").asInt(), sale.path("soldOut").asInt(), errors,
                sale.path("oversold").asInt(), sale.path("instances").size());
    }

    /**
     * The timeline of {@code stock:1} in a window, merged over every instance.
     *
     * @param from µs since the epoch
     * @param to µs since the epoch
     * @return its entries
     * @throws IOException when the instance does not answer, or the sample left entries out (too many)
     */
    List<FlashSaleFigures.Entry> timeline(long from, long to) throws IOException {
        JsonNode timeline = get("/api/demo/timeline?lock=stock:1&from=" + from + "&to=" + to);
        if (timeline.path("truncated").asBoolean()) {
            throw new IOException("The sample's timeline left entries out of [" + from + ", " + to + "]");
        }
        List<FlashSaleFigures.Entry> entries = new ArrayList<>();
        for (JsonNode entry : timeline.path("entries")) {
            entries.add(new FlashSaleFigures.Entry(entry.path("instanceId").asString(),
                    entry.path("outcome").asString(), nullableLong(entry.path("lockGrantedAt")),
                    nullableLong(entry.path("acquiredAt")), entry.path("releasedAt").asLong(),
                    nullableLong(entry.path("lockReleasedAt"))));
        }
        return entries;
    }

    private static Long nullableLong(JsonNode node) {
        return node.isNumber() ? node.asLong() : null;
    }

    private JsonNode get(String path) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30)).GET());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted", ex);
        }
    }
}
