package dev.distlock.sample.aot;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

import dev.distlock.embedded.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's executable jar, AOT-processed by the build ({@code spring-boot:process-aot}), started on the JVM
 * with {@code -Dspring.aot.enabled=true} in a process of its own: the application context comes from the generated
 * initializer, not from classpath scanning and condition evaluation, as in a native image. It deducts stock under
 * {@code @DistributedLock} on a real Redis, answered over HTTP. The jar's native-image metadata, which the same
 * processing wrote from the runtime hints, is checked for what distlock registers. The native image itself is not
 * built: GraalVM is not part of the build.
 */
class AotProcessedJarIT {

    /** Where the repackaged jar carries the metadata that AOT processing wrote (native-image reads it there). */
    private static final String METADATA =
            "META-INF/native-image/dev.distlock/sample-app/reachability-metadata.json";

    private static final Pattern STARTED_ON_PORT = Pattern.compile("Tomcat started on port (\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aotProcessedJarDeductsStockUnderTheLockOnRedis(@TempDir Path dataDir) throws Exception {
        Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
        assertThat(jar).as("the repackaged sample jar (mvn verify builds it before this test)").isRegularFile();
        Path log = Path.of("target", "aot-processed-jar.log");
        try (RedisServerProcess redis = RedisServerProcess.startOnFreePort()) {
            Process app = start(jar, redis, dataDir, log);
            try {
                String base = "http://127.0.0.1:" + awaitPort(app, log);
                assertThat(Files.readString(log)).contains("Starting AOT-processed SampleApplication");

                JsonNode deduction = json.readTree(send(HttpRequest.newBuilder(URI.create(base
                        + "/api/products/1/deduct?quantity=3")).POST(HttpRequest.BodyPublishers.noBody()), 200));
                assertThat(deduction.get("productId").asLong()).isEqualTo(1);
                assertThat(deduction.get("quantity").asInt()).isEqualTo(3);
                assertThat(deduction.get("remaining").asInt()).isEqualTo(97);
                JsonNode product = json.readTree(send(HttpRequest.newBuilder(URI.create(base + "/api/products/1")),
                        200));
                assertThat(product.get("stock").asInt()).isEqualTo(97);
                // The lock was taken on this Redis, with the scripts the jar carries as resources.
                assertThat(String.valueOf(redis.call("INFO", "commandstats"))).containsPattern("cmdstat_eval(sha)?:");
                JsonNode endpoint = json.readTree(send(HttpRequest.newBuilder(URI.create(base
                        + "/actuator/distlock")), 200));
                // Nothing held but the lease of the leadership the sample campaigns for (distlock.leader.groups).
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(json.readTree(send(HttpRequest
                        .newBuilder(URI.create(base + "/actuator/distlock")), 200)).get("leaderOf").toString())
                        .isEqualTo("[\"order-consumer\"]"));
                endpoint = json.readTree(send(HttpRequest.newBuilder(URI.create(base + "/actuator/distlock")), 200));
                assertThat(endpoint.get("counts").get("held").asInt()).isEqualTo(1);
                assertThat(endpoint.get("locks").get(0).get("name").asText()).isEqualTo("leader:order-consumer");
                assertThat(endpoint.get("watchdog").has("running")).isTrue();
                // The endpoint's force release (a web extension) is there, and off by default.
                send(HttpRequest.newBuilder(URI.create(base + "/actuator/distlock/leader:order-consumer")).DELETE(),
                        403);
                assertThat(json.readTree(send(HttpRequest.newBuilder(URI.create(base + "/actuator/distlock")), 200))
                        .get("leaderOf").toString()).isEqualTo("[\"order-consumer\"]");
            }
            finally {
                stop(app);
            }
        }
    }

    @Test
    void nativeImageMetadataCarriesDistlockHints() throws IOException {
        Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
        JsonNode metadata;
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry entry = file.getEntry(METADATA);
            assertThat(entry).as("%s in %s (written by spring-boot:process-aot)", METADATA, jar).isNotNull();
            try (InputStream in = file.getInputStream(entry)) {
                metadata = json.readTree(in);
            }
        }
        List<String> globs = new ArrayList<>();
        metadata.get("resources").forEach(resource -> globs.add(resource.path("glob").asString()));
        assertThat(globs).contains("dev/distlock/redis/*.lua", "dev/distlock/jdbc/schema-*.sql");
        assertThat(reflectionEntry(metadata, "dev.distlock.annotation.LockExpressionRootObject")
                .get("allPublicMethods").asBoolean()).isTrue();
        assertThat(reflectionEntry(metadata, "dev.distlock.sample.stock.StockService").toString())
                .contains("\"deduct\"");
        assertThat(reflectionEntry(metadata, "dev.distlock.autoconfigure.DistlockProperties").toString())
                .contains("<init>");
        assertThat(reflectionEntry(metadata, "dev.distlock.actuate.DistlockEndpoint$HeldLockDescriptor").toString())
                .contains("fencingToken");
        assertThat(reflectionEntry(metadata, "com.zaxxer.hikari.HikariDataSource").toString())
                .contains("evictConnection");
    }

    private static JsonNode reflectionEntry(JsonNode metadata, String type) {
        for (JsonNode entry : metadata.get("reflection")) {
            if (type.equals(entry.path("type").asString())) {
                return entry;
            }
        }
        throw new AssertionError("No reflection entry for " + type + " in " + METADATA);
    }

    private static Process start(Path jar, RedisServerProcess redis, Path dataDir, Path log) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Starts faster on a busy machine; the test is about what starts, not about speed.
                "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Dspring.aot.enabled=true", "-jar", jar.toString(),
                "--server.port=0", "--sample.embedded-redis=false", "--sample.embedded-zookeeper=false",
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--sample.data-dir=" + dataDir,
                "--spring.datasource.url=jdbc:h2:mem:aot;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;"
                        + "DEFAULT_NULL_ORDERING=HIGH",
                "--sample.daily-report.cron=-", "--spring.main.banner-mode=off");
        Files.createDirectories(log.getParent());
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits for Tomcat's "started on port" line; fails with the log when the process ends first. */
    private static int awaitPort(Process app, Path log) {
        return await("the AOT-processed sample to start (log: " + log.toAbsolutePath() + ")")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    String output = Files.readString(log);
                    if (!app.isAlive()) {
                        throw new AssertionError("The AOT-processed sample exited with " + app.exitValue() + ":\n"
                                + output);
                    }
                    Matcher matcher = STARTED_ON_PORT.matcher(output);
                    return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
                }, port -> port > 0);
    }

    private String send(HttpRequest.Builder request, int expectedStatus) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(response.statusCode()).as("%s %s: %s", response.request().method(), response.uri(),
                response.body()).isEqualTo(expectedStatus);
        return response.body();
    }

    /** SIGTERM first, so the application releases and closes as in production; then kill if it hangs. */
    private static void stop(Process app) throws InterruptedException {
        app.destroy();
        if (!app.waitFor(20, TimeUnit.SECONDS)) {
            app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
