package dev.distlock.docs;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import dev.distlock.docs.quickstart.StockController;
import dev.distlock.docs.quickstart.StockService;
import dev.distlock.embedded.RedisAddress;
import dev.distlock.test.DistlockTestRedis;
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
 * The README's quick start, run as the README says: an application made of its {@code application.yml}, its
 * {@link StockService} and {@link StockController} (the README shows exactly these files: {@link DocsSnippetsTests})
 * runs twice against a real Redis, and the README's calls ({@code <!-- run: ... -->} blocks) answer what the README
 * shows after them ({@link ExpectedJson}), the two instances taking turns. {@code .ci/generated-app.sh} does the
 * same from outside, with curl, on a new Maven project made of the same snippets.
 */
class GettingStartedTests {

    private static final Path README = Path.of("README.md");

    private static final Pattern CURL = Pattern.compile("curl -s -w '\\\\n' (?:-X (\\w+) )?'?(localhost:(\\d+)[^' ]*)'?");

    @Test
    void theReadmeCallsAnswerWhatTheReadmeShowsAndTwoInstancesTakeTurns() throws Exception {
        DistlockTestRedis.call("DEL", "demo-stock:42"); // the README starts on a new Redis
        try (ConfigurableApplicationContext first = start(); ConfigurableApplicationContext second = start()) {
            Map<String, String> ports = Map.of("8080", port(first), "8081", port(second));

            List<String> oneInstance = lines(DocFiles.block(README, "run", "one-instance"));
            for (int i = 0; i < oneInstance.size(); i += 2) {
                assertThat(oneInstance.get(i + 1)).as("the output after " + oneInstance.get(i)).startsWith("# ");
                String answer = call(oneInstance.get(i), ports).join().body();
                assertThat(ExpectedJson.mismatch(List.of(oneInstance.get(i + 1).substring(2)), List.of(answer), false))
                        .as(oneInstance.get(i)).isNull();
            }

            List<String> twoInstances = lines(DocFiles.block(README, "run", "two-instances"));
            assertThat(twoInstances.get(0))
                    .isEqualTo("./mvnw spring-boot:run -Dspring-boot.run.arguments=--server.port=8081");
            String[] atOnce = twoInstances.get(1).replaceFirst(" & wait$", "").split(" & ");
            assertThat(atOnce).hasSize(2);
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> calls = List.of(call(atOnce[0], ports), call(atOnce[1], ports));
            List<String> answers = calls.stream().map(call -> call.join().body()).toList();
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(ExpectedJson.mismatch(twoInstances.subList(2, 4).stream().map(line -> line.substring(2)).toList(),
                    answers, true)).as("the answers of both instances").isNull();
            assertThat(tookMillis).as("the second call waited for the first's lock (1 s of work each)")
                    .isGreaterThanOrEqualTo(1900);
            Map<?, ?> answer98 = parsed(answers, 98);
            Map<?, ?> answer97 = parsed(answers, 97);
            assertThat((Double) answer97.get("fencingToken")).as("the later holder's fencing token")
                    .isGreaterThan((Double) answer98.get("fencingToken"));
        }
    }

    @Test
    void theDependenciesNameTheStarterTheBomOfThisVersionWebAndActuator() throws Exception {
        String version = projectVersion();
        Document maven = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(
                "<project>" + DocFiles.read(quickStart("pom-dependencies.xml")) + "</project>")));
        NodeList dependencies = maven.getElementsByTagName("dependency");
        List<String> coordinates = new ArrayList<>();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String group = text(dependency, "groupId");
            String artifact = text(dependency, "artifactId");
            if (group.equals("dev.distlock")) {
                assertThat(DocFiles.project().resolve(artifact).resolve("pom.xml")).as(artifact).exists();
            }
            coordinates.add(group + ":" + artifact + ":" + text(dependency, "version") + ":" + text(dependency, "scope"));
        }
        assertThat(coordinates).containsExactly("dev.distlock:distlock-bom:" + version + ":import",
                "dev.distlock:distlock-spring-boot-starter::", "org.springframework.boot:spring-boot-starter-web::",
                "org.springframework.boot:spring-boot-starter-actuator::");
        assertThat(DocFiles.read(quickStart("build.gradle.kts")))
                .contains("platform(\"dev.distlock:distlock-bom:" + version + "\")")
                .contains("\"dev.distlock:distlock-spring-boot-starter\"")
                .contains("\"org.springframework.boot:spring-boot-starter-web\"")
                .contains("\"org.springframework.boot:spring-boot-starter-actuator\"");
    }

    @Test
    void theRedisWithoutDockerIsTheBinaryInTheEmbeddedRedisJarOfThisBuild() throws Exception {
        String pom = Files.readString(DocFiles.project().resolve("pom.xml"));
        Matcher version = Pattern.compile("<embedded-redis.version>([^<]+)</embedded-redis.version>").matcher(pom);
        assertThat(version.find()).as("embedded-redis.version in pom.xml").isTrue();
        String v = version.group(1);
        Matcher command = Pattern.compile("unzip -p ~/\\.m2/repository/(\\S+) (\\S+) > redis-server")
                .matcher(DocFiles.block(README, "run", "redis-from-the-maven-repository"));
        assertThat(command.find()).as("the README's unzip command").isTrue();
        assertThat(command.group(1))
                .isEqualTo("com/github/codemonstur/embedded-redis/" + v + "/embedded-redis-" + v + ".jar");
        assertThat(GettingStartedTests.class.getClassLoader().getResource(command.group(2)))
                .as("the binary " + command.group(2) + " in the embedded-redis jar").isNotNull();
    }

    private static Path quickStart(String file) {
        return Path.of("distlock-spring-boot-tests/src/test/resources/docs/quickstart").resolve(file);
    }

    private static ConfigurableApplicationContext start() throws Exception {
        List<PropertySource<?>> yaml = new YamlPropertySourceLoader().load("README application.yml",
                new ByteArrayResource(DocFiles.read(quickStart("application.yml")).getBytes()));
        assertThat(yaml).hasSize(1);
        assertThat(yaml.get(0).getProperty("spring.data.redis.host")).isEqualTo("localhost");
        RedisAddress redis = DistlockTestRedis.address();
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.SERVLET)
                .initializers(context -> {
                    var sources = context.getEnvironment().getPropertySources();
                    sources.addFirst(yaml.get(0));
                    // The README's localhost:6379 and 8080/8081 are a developer's; here a real Redis and free ports.
                    sources.addFirst(new MapPropertySource("test", Map.of("server.port", "0",
                            "spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
                })
                .run();
    }

    private static String port(ConfigurableApplicationContext app) {
        return app.getEnvironment().getProperty("local.server.port");
    }

    /** Sends a README curl command to the instance its port stands for. */
    private static CompletableFuture<HttpResponse<String>> call(String curl, Map<String, String> ports) {
        Matcher m = CURL.matcher(curl);
        assertThat(m.matches()).as("a curl call as the README writes them: " + curl).isTrue();
        String url = "http://" + m.group(2).replace("localhost:" + m.group(3), "localhost:" + ports.get(m.group(3)));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (m.group(1) != null) {
            request.method(m.group(1), HttpRequest.BodyPublishers.noBody());
        }
        return HttpClient.newHttpClient().sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> {
                    assertThat(response.statusCode()).as(curl).isEqualTo(200);
                    return response;
                });
    }

    private static List<String> lines(String block) {
        return block.lines().filter(line -> !line.isBlank()).toList();
    }

    private static Map<?, ?> parsed(List<String> answers, int remaining) {
        return answers.stream().map(answer -> (Map<?, ?>) ExpectedJson.parse(answer))
                .filter(answer -> ((Double) answer.get("remaining")) == remaining).findFirst().orElseThrow();
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().strip();
    }

    private static String projectVersion() throws Exception {
        String pom = Files.readString(DocFiles.project().resolve("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>distlock-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(m.find()).as("version of distlock-parent").isTrue();
        return m.group(1);
    }

    /** The README's application: its service and controller, and Spring Boot's auto-configuration. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ StockService.class, StockController.class })
    static class Application {
    }
}
