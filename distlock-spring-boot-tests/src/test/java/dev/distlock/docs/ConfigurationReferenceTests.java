package dev.distlock.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/reference/configuration.md} is generated from the {@code META-INF/spring-configuration-metadata.json}
 * that Spring Boot's configuration processor writes into every module with {@code @ConfigurationProperties}: this
 * test reads all of them on its class path (the auto-configuration and every store module: its surefire execution
 * {@code configuration-reference} leaves none out), renders every {@code distlock.*} property, and fails when the
 * checked-in file differs. {@code -Ddistlock.docs.write=true} writes the file instead.
 */
class ConfigurationReferenceTests {

    static final Path FILE = Path.of("docs/reference/configuration.md");

    private static final String WRITE = "distlock.docs.write";

    /** Runs this test alone, in its own surefire execution (whose class path has every store module). */
    static final String REGENERATE = "./mvnw -B -pl distlock-spring-boot-tests -am test-compile "
            + "surefire:test@configuration-reference -Dtest=ConfigurationReferenceTests "
            + "-Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE + "=true";

    private static final Pattern JAR = Pattern.compile("([^/]+?)-\\d[^/]*\\.jar!/META-INF/.*");

    private static final Pattern CLASSES = Pattern.compile(".*/([^/]+)/target/classes/META-INF/.*");

    @Test
    void theCheckedInReferenceIsGeneratedFromTheMetadata() throws IOException {
        String generated = render(metadata());
        Path file = DocFiles.project().resolve(FILE);
        if (Boolean.getBoolean(WRITE)) {
            Files.writeString(file, generated);
        }
        assertThat(Files.exists(file) ? DocFiles.read(FILE) : "")
                .as(FILE + " is not what the configuration metadata says: regenerate it with\n"
                        + REGENERATE)
                .isEqualTo(generated);
    }

    @Test
    void everyModuleWithPropertiesIsOnTheClassPath() throws IOException {
        assertThat(metadata().keySet()).as("modules with configuration metadata on the class path: run this test in its "
                + "own surefire execution (configuration-reference), e.g. " + REGENERATE).contains("distlock-spring-boot-autoconfigure", "distlock-redis",
                "distlock-jdbc", "distlock-zookeeper", "distlock-etcd");
    }

    /** @return per module, its metadata document */
    private static Map<String, Map<?, ?>> metadata() throws IOException {
        Map<String, Map<?, ?>> modules = new TreeMap<>();
        for (URL url : Collections.list(ConfigurationReferenceTests.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            String module = module(url.toString());
            if (module == null || !module.startsWith("distlock-")) {
                continue;
            }
            try (InputStream in = url.openStream()) {
                modules.put(module, (Map<?, ?>) ExpectedJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        return modules;
    }

    private static String module(String url) {
        for (Pattern pattern : List.of(JAR, CLASSES)) {
            Matcher m = pattern.matcher(url);
            if (m.find()) {
                return m.group(1);
            }
        }
        return null;
    }

    static String render(Map<String, Map<?, ?>> modules) {
        StringBuilder out = new StringBuilder();
        out.append("""
                # Configuration reference

                <!-- GENERATED FILE: do not edit. ConfigurationReferenceTests (distlock-spring-boot-tests) renders it from
                     the META-INF/spring-configuration-metadata.json of every distlock module and fails the build when this
                     file differs. After changing a @ConfigurationProperties class or its Javadoc, regenerate it with
                     %s -->

                Every `distlock.*` property, with its type, default and description, as the configuration metadata (what
                your IDE shows) has them. Durations take Spring Boot's forms (`3s`, `500ms`, `PT3S`; a bare number is
                milliseconds). An invalid value (a negative wait, a lease under 3 ms, a zero command timeout, a blank
                prefix, an unknown `on-lease-lost`, a malformed Redlock URI, fewer than 3 Redlock nodes, a blank
                leadership group) fails start-up with a message naming the property. The store itself is configured
                where Spring Boot configures it: `spring.data.redis.*` (standalone, Sentinel, Cluster, password, TLS),
                `spring.datasource.*`, or the store's own properties below.

                """.formatted(REGENERATE));
        List<String> order = new ArrayList<>(modules.keySet());
        order.sort(Comparator.comparing((String module) -> !module.equals("distlock-spring-boot-autoconfigure"))
                .thenComparing(Comparator.naturalOrder()));
        for (String module : order) {
            Map<?, ?> metadata = modules.get(module);
            Map<String, String> hints = hints(metadata);
            List<Map<?, ?>> properties = new ArrayList<>();
            for (Object property : (List<?>) metadata.get("properties")) {
                Map<?, ?> p = (Map<?, ?>) property;
                if (String.valueOf(p.get("name")).startsWith("distlock.")) {
                    properties.add(p);
                }
            }
            if (properties.isEmpty()) {
                continue;
            }
            properties.sort(Comparator.comparing(p -> String.valueOf(p.get("name"))));
            out.append("## ").append(TITLES.getOrDefault(module, storeTitle(module))).append("\n\n");
            out.append("| property | type | default | description |\n|---|---|---|---|\n");
            for (Map<?, ?> p : properties) {
                String name = String.valueOf(p.get("name"));
                String description = p.get("description") == null ? "" : String.valueOf(p.get("description"));
                if (p.get("deprecation") != null) {
                    description = "Deprecated. " + description;
                }
                if (hints.containsKey(name)) {
                    description += " " + hints.get(name);
                }
                out.append("| `").append(name).append("` | ").append(type(p.get("type"))).append(" | ")
                        .append(defaultValue(p.get("defaultValue"))).append(" | ").append(cell(description))
                        .append(" |\n");
            }
            out.append('\n');
        }
        out.append(NOTES);
        return out.toString().stripTrailing() + "\n";
    }

    /** What the metadata cannot say: how the values are used, read from the code that uses them. */
    private static final String NOTES = """
            ## Notes

            - `distlock.key-prefix`: Redis keys are `<prefix>:...` (not blank, no `{` or `}`), etcd keys `<prefix>/...`;
              the release notifications' channel is `<prefix>:released`.
            - `distlock.wait-time`: waits over about 73 years (e.g. `Duration.ofSeconds(Long.MAX_VALUE)` for "forever")
              count as 73 years.
            - `distlock.aspect-order`: the default is `Ordered.LOWEST_PRECEDENCE - 1000`, lower than the transaction
              advice's `LOWEST_PRECEDENCE`, so that the lock wraps the transaction; ordering it inside logs a warning.
            - `distlock.store`: unset, the only store on the class path is used; with several, start-up fails asking
              for it.
            - `distlock.replication.min-replicas`: off Sentinel, `auto` reads `INFO replication` once per master and
              lock connection (asked again in the background when the answer is over 5 s old), so a master without
              replica costs no `WAIT` and no extra round trip; behind Sentinel it asks nothing and always waits for one
              replica ([Sentinel](../how-to/sentinel-cluster-redlock.md)). It needs Lettuce: on Jedis `auto` waits for
              none (with a WARN at start-up) and a number above 0 fails start-up. See
              [Redis](../how-to/redis.md#acl-users) for the ACL commands it needs.
            - `distlock.zookeeper.*`, `distlock.etcd.*`: used when the application has no `CuratorFramework` bean (no
              jetcd `Client` bean); a `ZooKeeperConnectionDetails` (`EtcdConnectionDetails`) bean takes the place of the
              connect string (endpoints and credentials). The etcd password is never logged.
            - `distlock.leader.groups`: a blank group fails start-up; see
              [Leadership](programmatic-api.md#leadership).
            """;

    private static final Map<String, String> TITLES = Map.of(
            "distlock-spring-boot-autoconfigure", "Every store (`distlock-spring-boot-autoconfigure`)",
            "distlock-redis", "Redis, Sentinel, Cluster, Redlock (`distlock-redis`, starter `distlock-spring-boot-starter`)",
            "distlock-jdbc", "JDBC (`distlock-jdbc`, starter `distlock-spring-boot-starter-jdbc`)",
            "distlock-zookeeper", "ZooKeeper (`distlock-zookeeper`, starter `distlock-spring-boot-starter-zookeeper`)",
            "distlock-etcd", "etcd (`distlock-etcd`, starter `distlock-spring-boot-starter-etcd`)");

    /** A store module without a title of its own: its id, capitalised, and its starter by the naming rule. */
    private static String storeTitle(String module) {
        String id = module.substring("distlock-".length());
        return Character.toUpperCase(id.charAt(0)) + id.substring(1) + " (`" + module
                + "`, starter `distlock-spring-boot-starter-" + id + "`)";
    }

    private static Map<String, String> hints(Map<?, ?> metadata) {
        Map<String, String> hints = new TreeMap<>();
        Object all = metadata.get("hints");
        if (!(all instanceof List<?> list)) {
            return hints;
        }
        for (Object hint : list) {
            Map<?, ?> h = (Map<?, ?>) hint;
            List<String> values = new ArrayList<>();
            for (Object value : (List<?>) h.get("values")) {
                Map<?, ?> v = (Map<?, ?>) value;
                String description = (v.get("description") == null) ? "" : String.valueOf(v.get("description"));
                values.add("`" + v.get("value") + "`" + (description.isEmpty() ? "" : ": " + description.replaceAll("\\.$", "")));
            }
            hints.put(String.valueOf(h.get("name")), "Values: " + String.join("; ", values) + ".");
        }
        return hints;
    }

    private static String type(Object type) {
        return type == null ? "" : "`" + String.valueOf(type).replaceAll("\\b[a-z][\\w]*\\.(?=[\\w.]*[A-Z])", "")
                .replace('$', '.') + "`";
    }

    private static String defaultValue(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof List<?> list) {
            return list.isEmpty() ? "" : "`" + String.join(",", list.stream().map(String::valueOf).toList()) + "`";
        }
        if (value instanceof Double number && number == Math.rint(number)) {
            return "`" + number.longValue() + "`";
        }
        return "`" + value + "`";
    }

    private static String cell(String text) {
        return text.replace("\n", " ").replace("|", "\\|");
    }
}
