package dev.distlock.etcd;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.distlock.embedded.ProcessSignals;
import dev.distlock.embedded.LoopbackPorts;
import io.etcd.jetcd.Client;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real etcd servers for tests: {@code etcd} processes from the machine's binary (Debian's {@code etcd-server}
 * package, {@code /usr/bin/etcd}, or {@code DISTLOCK_ETCD_BIN}), each member on free loopback ports with its data
 * in a temporary directory (on {@code /dev/shm} when there is one: the tests measure locking, not the disk). One
 * member for the contract suite ({@link #shared()}), three for faults ({@link #start(int)}); members can be stopped,
 * killed, frozen and started again on the same ports and data.
 * <p>
 * Heartbeat 50 ms and election timeout 500 ms: a new leader within about a second of a crash, and etcd's minimum
 * lease TTL ({@code 1.5 × election timeout}) is then 1 s, so leases of tests can be short.
 * <p>
 * Without the binary, {@link #shared()} and {@link #start(int)} skip the calling tests with a visible reason (a
 * JUnit assumption, and a WARN line) instead of failing or passing silently.
 */
public final class EtcdTestCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EtcdTestCluster.class);

    private static final String MISSING = "No etcd binary on this machine (install Debian's etcd-server, or set "
            + "DISTLOCK_ETCD_BIN): the etcd tests are skipped";

    private static EtcdTestCluster shared;

    private final Path binary;

    private final Path directory;

    private final List<Member> members;

    private final Process[] processes;

    private Client admin;

    private EtcdTestCluster(Path binary, Path directory, List<Member> members) {
        this.binary = binary;
        this.directory = directory;
        this.members = members;
        this.processes = new Process[members.size()];
    }

    /** @return the etcd binary of this machine, if any */
    public static Optional<Path> binary() {
        String configured = System.getenv("DISTLOCK_ETCD_BIN");
        Stream<String> candidates = configured != null && !configured.isBlank() ? Stream.of(configured)
                : Stream.concat(Stream.of("/usr/bin/etcd", "/usr/local/bin/etcd"),
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                                .map(dir -> dir + "/etcd"));
        return candidates.map(Path::of).filter(Files::isExecutable).findFirst();
    }

    /**
     * @return the single-member server of this JVM, started on first use and stopped when the JVM exits
     * @throws org.opentest4j.TestAbortedException without an etcd binary (the test is skipped)
     */
    public static synchronized EtcdTestCluster shared() {
        if (shared == null) {
            shared = start(1);
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "etcd-test-cluster-stop"));
        }
        for (int i = 0; i < shared.size(); i++) {
            if (!shared.running(i)) {
                shared.startMember(i);
            }
        }
        return shared;
    }

    /**
     * Starts a cluster of the caller's own; {@link #close()} stops it.
     *
     * @param size the number of members
     * @return the started cluster, once every member answers {@code /health}
     * @throws org.opentest4j.TestAbortedException without an etcd binary (the test is skipped)
     */
    public static EtcdTestCluster start(int size) {
        Optional<Path> binary = binary();
        if (binary.isEmpty()) {
            log.warn(MISSING);
        }
        Assumptions.assumeTrue(binary.isPresent(), MISSING);
        try {
            Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : null;
            Path directory = base != null ? Files.createTempDirectory(base, "distlock-etcd")
                    : Files.createTempDirectory("distlock-etcd");
            // Client and peer ports chosen at once, so that no two are the same (LoopbackPorts).
            int[] ports = LoopbackPorts.distinct(2 * size);
            List<Member> members = IntStream.range(0, size)
                    .mapToObj(i -> new Member("m" + i, ports[2 * i], ports[2 * i + 1])).toList();
            EtcdTestCluster cluster = new EtcdTestCluster(binary.get(), directory, members);
            try {
                for (int i = 0; i < size; i++) {
                    cluster.launch(i);
                }
                for (int i = 0; i < size; i++) {
                    cluster.awaitHealthy(i);
                }
            }
            catch (RuntimeException ex) {
                cluster.close(); // a member that did not come up must not leave the others running
                throw ex;
            }
            return cluster;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the number of members */
    public int size() {
        return members.size();
    }

    /** @return every member's client URL */
    public List<String> endpoints() {
        return IntStream.range(0, size()).mapToObj(this::endpoint).toList();
    }

    /** @return one member's client URL */
    public String endpoint(int member) {
        return "http://127.0.0.1:" + members.get(member).clientPort();
    }

    /**
     * @return a jetcd client on every member, for looking into etcd and breaking things as an operator would; made
     *         on first use, closed with the cluster
     */
    public synchronized Client admin() {
        if (admin == null) {
            admin = Client.builder().endpoints(endpoints().toArray(String[]::new)).build();
        }
        return admin;
    }

    /** @return whether that member's process runs */
    public boolean running(int member) {
        Process process = processes[member];
        return process != null && process.isAlive();
    }

    /** Stops a member as an operator would (SIGTERM), and waits for it to end. */
    public void stop(int member) {
        end(member, false);
    }

    /** Kills a member (SIGKILL), as a crash would, and waits for it to end. */
    public void kill(int member) {
        end(member, true);
    }

    /** Freezes a member (SIGSTOP): its connections stay open and nothing answers. */
    public void pause(int member) {
        ProcessSignals.freeze(pid(member));
    }

    /** Thaws a member frozen by {@link #pause(int)}. */
    public void resume(int member) {
        ProcessSignals.thaw(pid(member));
    }

    /** Starts a stopped member again on its ports and data, and waits until it answers. */
    public void startMember(int member) {
        launch(member);
        awaitHealthy(member);
    }

    /**
     * @return the index of the member that leads now, by asking each running member's {@code /v3/maintenance/status}
     *         (etcd's gRPC gateway) for its id and its leader's
     */
    public int leader() {
        for (int i = 0; i < size(); i++) {
            if (!running(i)) {
                continue;
            }
            String status = post(i, "/v3/maintenance/status", "{}");
            String self = field(status, "member_id");
            String leader = field(status, "leader");
            if (self != null && self.equals(leader)) {
                return i;
            }
        }
        throw new IllegalStateException("No member of the etcd test cluster leads");
    }

    private void launch(int index) {
        Member member = members.get(index);
        String initialCluster = members.stream().map(m -> m.name() + "=http://127.0.0.1:" + m.peerPort())
                .collect(Collectors.joining(","));
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--name", member.name(),
                "--data-dir", directory.resolve(member.name()).toString(),
                "--listen-client-urls", endpoint(index),
                "--advertise-client-urls", endpoint(index),
                "--listen-peer-urls", "http://127.0.0.1:" + member.peerPort(),
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + member.peerPort(),
                "--initial-cluster", initialCluster,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", "distlock-test-" + directory.getFileName(),
                "--heartbeat-interval", "50",
                "--election-timeout", "500",
                "--log-level", "warn"));
        try {
            processes[index] = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve(member.name() + ".log")
                            .toFile()))
                    .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + binary, ex);
        }
    }

    private void awaitHealthy(int member) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create(endpoint(member) + "/health"))
                .timeout(Duration.ofSeconds(1)).build();
        // A starting process notifies nobody: poll its /health, and stop at once if it ended.
        Awaitility.await("etcd member " + member + " healthy").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50)).ignoreExceptionsInstanceOf(IOException.class).until(() -> {
                    if (!running(member)) {
                        throw new IllegalStateException("etcd member " + member + " ended at start-up; see "
                                + directory.resolve(members.get(member).name() + ".log"));
                    }
                    HttpResponse<String> answer = http.send(health, HttpResponse.BodyHandlers.ofString());
                    return answer.statusCode() == 200 && answer.body().contains("\"true\"");
                });
    }

    private String post(int member, String path, String body) {
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
            return http.send(HttpRequest.newBuilder(URI.create(endpoint(member) + path))
                    .timeout(Duration.ofSeconds(2)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** @return a string field of etcd's JSON (ids are strings there), without a JSON library */
    private static String field(String json, String name) {
        int at = json.indexOf("\"" + name + "\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + name.length() + 4;
        return json.substring(start, json.indexOf('"', start));
    }

    private void end(int member, boolean kill) {
        Process process = processes[member];
        if (process == null) {
            return;
        }
        if (kill) {
            process.destroyForcibly();
        }
        else {
            process.destroy();
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private long pid(int member) {
        Process process = processes[member];
        if (process == null) {
            throw new IllegalStateException("etcd member " + member + " is not running");
        }
        return process.pid();
    }

    /** Kills every member and deletes the data. */
    @Override
    public void close() {
        synchronized (this) {
            if (admin != null) {
                admin.close();
            }
        }
        for (int i = 0; i < size(); i++) {
            if (running(i)) {
                resume(i);
            }
            kill(i);
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException ex) {
            log.debug("Could not delete {}", directory, ex);
        }
    }

    private record Member(String name, int clientPort, int peerPort) {
    }
}
