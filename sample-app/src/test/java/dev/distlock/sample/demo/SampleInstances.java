package dev.distlock.sample.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.sample.SampleApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Several sample instances inside the test JVM, set up as they are run locally: separate application contexts with
 * their own web servers on free ports, lock services and connection pools, sharing one H2 <em>file</em> database
 * ({@code AUTO_SERVER=TRUE}, the sample's default URL) in a temporary directory and one real Redis, which the first
 * instance starts (the sample's embedded Redis, on a free port) and the others join, as when they are started from a
 * terminal. The first instance owns that Redis: it can freeze it (the page's fail-closed demo).
 */
final class SampleInstances implements AutoCloseable {

    private final int redisPort = LoopbackPorts.free();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private SampleInstances() {
    }

    /**
     * Starts {@code count} instances, one after the other (the first one creates the schema and starts Redis).
     *
     * @param count how many instances
     * @param dataDir where the H2 database file goes
     * @return the running instances; close them to stop everything
     */
    static SampleInstances start(int count, Path dataDir) {
        SampleInstances instances = new SampleInstances();
        try {
            for (int i = 0; i < count; i++) {
                instances.contexts.add(instances.startOne(dataDir));
            }
            return instances;
        }
        catch (RuntimeException ex) {
            instances.close();
            throw ex;
        }
    }

    private ConfigurableApplicationContext startOne(Path dataDir) {
        // Command-line arguments, so that they override application.properties.
        return new SpringApplicationBuilder(SampleApplication.class).run(Stream.of("--server.port=0",
                "--spring.data.redis.port=" + redisPort, "--sample.data-dir=" + dataDir,
                // Generous: the tests are about who sells, not about timeouts on a busy machine.
                "--distlock.wait-time=20s", "--sample.daily-report.cron=-", "--spring.main.banner-mode=off")
                .toArray(String[]::new));
    }

    /**
     * @param index which instance, in start order
     * @return its base URL
     */
    String url(int index) {
        int port = ((WebServerApplicationContext) contexts.get(index)).getWebServer().getPort();
        return "http://127.0.0.1:" + port;
    }

    /**
     * @param index which instance, in start order
     * @return its application context
     */
    ConfigurableApplicationContext context(int index) {
        return contexts.get(index);
    }

    /** @return how many instances run */
    int size() {
        return contexts.size();
    }

    @Override
    public void close() {
        // Newest first: the first instance opened the database file and started Redis (it stops with it).
        for (int i = contexts.size() - 1; i >= 0; i--) {
            contexts.get(i).close();
        }
        contexts.clear();
    }
}
