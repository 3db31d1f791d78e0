package dev.distlock.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.embedded.RedisAddress;
import dev.distlock.test.DistlockTestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "Getting started" as a test: the service snippet is {@link StockService}, compiled here; an
 * application made of it and the {@code application.yml} snippet locks against a real Redis; the URLs of the
 * "see it work" snippet answer; the Maven and Gradle snippets name the published starter and BOM at this version.
 */
class GettingStartedTests {

    @Test
    void theServiceSnippetIsTheCompiledStockService() {
        String source = ReadmeSnippets.read(ReadmeSnippets.project().resolve(
                "distlock-spring-boot-tests/src/test/java/dev/distlock/docs/StockService.java"));
        assertThat(ReadmeSnippets.get("getting-started-service"))
                .isEqualTo(source.substring(source.indexOf("\n\n") + 2));
    }

    @Test
    void theApplicationOfTheSnippetsLocksTheMethodAndShowsItsLocks() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            StockService service = app.getBean(StockService.class);
            List<Callable<Integer>> buyers = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                buyers.add(() -> service.deduct(42, 1));
            }
            int sold = 0;
            int soldOut = 0;
            ExecutorService pool = Executors.newFixedThreadPool(12);
            try {
                for (Future<Integer> buyer : pool.invokeAll(buyers)) {
                    try {
                        buyer.get();
                        sold++;
                    }
                    catch (java.util.concurrent.ExecutionException ex) {
                        assertThat(ex.getCause()).isInstanceOf(IllegalStateException.class).hasMessageContaining("sold out");
                        soldOut++;
                    }
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(sold).isEqualTo(100);
            assertThat(soldOut).isEqualTo(50);
            assertThat(app.getBean(MeterRegistry.class).get("distlock.acquire").tag("lock", "stock")
                    .tag("result", "acquired").timer().count()).as("every call took the lock").isEqualTo(150);

            String base = "http://localhost:" + app.getEnvironment().getProperty("local.server.port");
            List<String> paths = new ArrayList<>();
            Matcher url = Pattern.compile("localhost:8080(\\S+)").matcher(ReadmeSnippets.get("getting-started-see-it"));
            while (url.find()) {
                paths.add(url.group(1));
            }
            assertThat(paths).containsExactly("/actuator/distlock", "/actuator/metrics/distlock.acquire");
            try (LockHandle held = app.getBean(LockService.class).lock("stock:7")) {
                assertThat(get(base + paths.get(0))).contains("\"stock:7\"")
                        .contains("\"fencingToken\":" + held.fencingToken());
            }
            assertThat(get(base + paths.get(1))).contains("\"COUNT\"").contains("\"value\":151.0");
        }
    }

    @Test
    void theDependencySnippetsNameThePublishedStarterAndBomOfThisVersion() throws Exception {
        String version = projectVersion();
        Document maven = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(
                new java.io.StringReader("<project>" + ReadmeSnippets.get("getting-started-maven") + "</project>")));
        NodeList dependencies = maven.getElementsByTagName("dependency");
        List<String> coordinates = new ArrayList<>();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String artifact = text(dependency, "artifactId");
            assertThat(text(dependency, "groupId")).isEqualTo("dev.distlock");
            assertThat(ReadmeSnippets.project().resolve(artifact).resolve("pom.xml")).as(artifact).exists();
            coordinates.add(artifact + ":" + text(dependency, "version") + ":" + text(dependency, "scope"));
        }
        assertThat(coordinates).containsExactly("distlock-bom:" + version + ":import",
                "distlock-spring-boot-starter::");
        assertThat(ReadmeSnippets.get("getting-started-gradle"))
                .contains("platform(\"dev.distlock:distlock-bom:" + version + "\")")
                .contains("\"dev.distlock:distlock-spring-boot-starter\"");
    }

    private static ConfigurableApplicationContext start() throws Exception {
        List<PropertySource<?>> yaml = new YamlPropertySourceLoader().load("README application.yml",
                new ByteArrayResource(ReadmeSnippets.get("getting-started-yml").getBytes()));
        assertThat(yaml).hasSize(1);
        assertThat(yaml.get(0).getProperty("spring.data.redis.host")).isEqualTo("localhost");
        RedisAddress redis = DistlockTestRedis.address();
        SpringApplicationBuilder builder = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.SERVLET)
                .initializers(context -> {
                    var sources = context.getEnvironment().getPropertySources();
                    sources.addFirst(yaml.get(0));
                    // The snippet's localhost:6379 is where a developer's Redis listens; here, a real one on a free port.
                    sources.addFirst(new MapPropertySource("test", Map.of("server.port", "0",
                            "spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
                });
        return builder.run();
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().strip();
    }

    private static String projectVersion() throws Exception {
        String pom = Files.readString(ReadmeSnippets.project().resolve("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>distlock-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(m.find()).as("version of distlock-parent").isTrue();
        return m.group(1);
    }

    /** The application of the README: its service, and Spring Boot's auto-configuration. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(StockService.class)
    static class Application {
    }
}
