package dev.distlock.sample.etcd;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.embedded.OwnSession;
import dev.distlock.sample.EmbeddedServerLauncher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Starts a local {@code etcd} process for the sample when it runs with {@code distlock.store=etcd} and no etcd is
 * there, so that trying the sample on etcd needs nothing but Debian's {@code etcd-server} package (or any etcd
 * binary, named by {@code sample.etcd-binary}).
 * <p>
 * Runs when the environment is ready, before any bean exists. It starts one member on the port of
 * {@code distlock.etcd.endpoints} only when {@code sample.embedded-etcd} is {@code true} (the default), the
 * endpoints are one loopback URL, nothing listens there yet and a binary is found: the first local instance starts
 * it, later instances join it, and it stops with that first instance. Its data lives in
 * {@code ${sample.data-dir}/etcd}, next to the sample's database, so that revisions — the fencing tokens the
 * database has seen — keep growing across restarts of the sample. Without a binary it says so and starts nothing:
 * locking then fails closed until an etcd answers. Registered in {@code META-INF/spring.factories}.
 */
public class EmbeddedEtcdLauncher extends EmbeddedServerLauncher<Process> {

    /** Property that turns the local etcd off. */
    public static final String ENABLED_PROPERTY = "sample.embedded-etcd";

    /** Property naming the etcd binary; by default {@code /usr/bin/etcd}, then the {@code PATH}. */
    public static final String BINARY_PROPERTY = "sample.etcd-binary";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedEtcdLauncher.class);

    @Override
    protected Process startIfNeeded(ConfigurableEnvironment env) {
        if (!"etcd".equals(lockStore(env)) || !env.getProperty(ENABLED_PROPERTY, Boolean.class, true)
                || !env.getProperty("distlock.enabled", Boolean.class, true)) {
            return null;
        }
        String endpoints = env.getProperty("distlock.etcd.endpoints", "http://localhost:2379").strip();
        URI endpoint;
        try {
            endpoint = URI.create(endpoints);
        }
        catch (IllegalArgumentException ex) {
            return null; // not one URL: the store's own validation names the property
        }
        if (endpoints.contains(",") || endpoint.getHost() == null || endpoint.getPort() < 0
                || !isLoopback(endpoint.getHost())) {
            log.info("Using the configured etcd {}; no local etcd started", endpoints);
            return null;
        }
        int port = endpoint.getPort();
        if (isListening(port)) {
            log.info("Using the etcd already listening on 127.0.0.1:{}", port);
            return null;
        }
        Optional<Path> binary = binary(env.getProperty(BINARY_PROPERTY));
        if (binary.isEmpty()) {
            log.warn("distlock.store=etcd, nothing listens on {} and no etcd binary was found (install Debian's "
                    + "etcd-server, set {} or point distlock.etcd.endpoints at an etcd): locking fails closed "
                    + "until an etcd answers", endpoints, BINARY_PROPERTY);
            return null;
        }
        return start(binary.get(), port, new File(env.resolvePlaceholders("${sample.data-dir}"), "etcd").toPath());
    }

    private static Process start(Path binary, int port, Path dataDir) {
        String client = "http://127.0.0.1:" + port;
        try {
            Files.createDirectories(dataDir.getParent());
            int peerPort = LoopbackPorts.free();
            String peer = "http://127.0.0.1:" + peerPort;
            // A session of its own: Ctrl-C in the sample's terminal must not stop etcd before distlock released.
            Process process = new ProcessBuilder(OwnSession.command(List.of(binary.toString(), "--name", "sample",
                    "--data-dir", dataDir.toString(), "--listen-client-urls", client,
                    "--advertise-client-urls", client, "--listen-peer-urls", peer,
                    "--initial-advertise-peer-urls", peer, "--initial-cluster", "sample=" + peer,
                    "--log-level", "warn")))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDir.resolveSibling("etcd.log").toFile()))
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!isListening(port)) {
                if (!process.isAlive()) {
                    if (isListening(port)) {
                        break;
                    }
                    throw new IllegalStateException("The local etcd ended at start-up; see "
                            + dataDir.resolveSibling("etcd.log"));
                }
                if (System.nanoTime() - deadline > 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException("The local etcd did not listen on " + client + " in 30 s");
                }
                Thread.sleep(50); // a starting process: there is nothing to be notified by
            }
            if (!process.isAlive()) {
                log.info("Another instance just started an etcd on {}; using it", client);
                return null;
            }
            log.info("Started a local etcd ({}) on {} (data in {}). This instance owns it: it stops when this "
                    + "instance stops, also when other local instances still use it.", binary, client, dataDir);
            return process;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a local etcd on port " + port + " (set "
                    + ENABLED_PROPERTY + "=false and distlock.etcd.endpoints to use another one)", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while starting a local etcd", ex);
        }
    }

    /**
     * @param configured {@code sample.etcd-binary}, or {@code null}
     * @return the configured binary, else Debian's, else the first {@code etcd} on the {@code PATH}
     */
    public static Optional<Path> binary(@Nullable String configured) {
        Stream<String> candidates = configured != null && !configured.isBlank() ? Stream.of(configured)
                : Stream.concat(Stream.of("/usr/bin/etcd"), Stream.of(System.getenv()
                        .getOrDefault("PATH", "").split(File.pathSeparator)).map(dir -> dir + "/etcd"));
        return candidates.map(Path::of).filter(Files::isExecutable).findFirst();
    }

    @Override
    protected void stop(Process server) {
        log.info("Stopping the local etcd");
        server.destroy();
        try {
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            server.destroyForcibly();
        }
    }
}
