package dev.distlock.memcached;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.embedded.ProcessSignals;
import dev.distlock.embedded.LoopbackPorts;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * A real {@code memcached} process for the tests, from the machine's binary (Debian's {@code memcached}, or
 * {@code DISTLOCK_MEMCACHED_BIN}) on a free loopback port, 64 MB, with {@code -M} (evictions off, as the store
 * requires) unless asked otherwise. It can be stopped, killed, frozen (SIGSTOP) and started again on the same port,
 * always empty: Memcached keeps nothing across a restart. A JVM shutdown hook kills what is left.
 */
public final class MemcachedTestServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MemcachedTestServer.class);

    /** Why a test is skipped where the binary is missing. */
    public static final String MISSING = "Memcached tests SKIPPED: no memcached binary on this machine; install "
            + "Debian's memcached package or set DISTLOCK_MEMCACHED_BIN";

    private final Path binary;

    private final int port;

    private final boolean evictions;

    private final int megabytes;

    private volatile Process process;

    private MemcachedTestServer(Path binary, int port, boolean evictions, int megabytes) {
        this.binary = binary;
        this.port = port;
        this.evictions = evictions;
        this.megabytes = megabytes;
        this.process = launch();
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "memcached-test-server-stop"));
    }

    /** @return the memcached binary of this machine, if any */
    public static Optional<Path> binary() {
        String configured = System.getenv("DISTLOCK_MEMCACHED_BIN");
        Stream<String> candidates = configured != null && !configured.isBlank() ? Stream.of(configured)
                : Stream.concat(Stream.of("/usr/bin/memcached", "/usr/local/bin/memcached"),
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                                .map(dir -> dir + "/memcached"));
        return candidates.map(Path::of).filter(Files::isExecutable).findFirst();
    }

    /**
     * @return a started server with evictions off ({@code -M})
     * @throws org.opentest4j.TestAbortedException without a memcached binary (the test is skipped)
     */
    public static MemcachedTestServer start() {
        return start(false);
    }

    /**
     * @param evictions true to start it without {@code -M}, as Memcached runs by default (it may evict)
     * @return a started server
     * @throws org.opentest4j.TestAbortedException without a memcached binary (the test is skipped)
     */
    public static MemcachedTestServer start(boolean evictions) {
        return start(evictions, 64);
    }

    /**
     * @param evictions true to start it without {@code -M}, as Memcached runs by default (it may evict)
     * @param megabytes its memory ({@code -m})
     * @return a started server
     * @throws org.opentest4j.TestAbortedException without a memcached binary (the test is skipped)
     */
    public static MemcachedTestServer start(boolean evictions, int megabytes) {
        Optional<Path> binary = binary();
        if (binary.isEmpty()) {
            log.warn(MISSING);
        }
        Assumptions.assumeTrue(binary.isPresent(), MISSING);
        return new MemcachedTestServer(binary.get(), LoopbackPorts.free(), evictions, megabytes);
    }

    private Process launch() {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-l", "127.0.0.1", "-p",
                String.valueOf(port), "-U", "0", "-m", String.valueOf(megabytes), "-t", "2"));
        if (!evictions) {
            command.add("-M");
        }
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "root")); // memcached refuses to run as root without it
        }
        try {
            Process started = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            await("memcached answers on " + port).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .ignoreExceptions().until(() -> {
                        if (!started.isAlive()) {
                            throw new IllegalStateException("memcached exited with " + started.exitValue());
                        }
                        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                            return true;
                        }
                    });
            return started;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
    }

    /** @return {@code 127.0.0.1:port} */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** @return the server's port */
    public int port() {
        return port;
    }

    /** @return the binary's version, e.g. {@code memcached 1.6.18} */
    public String version() {
        try {
            Process version = new ProcessBuilder(binary.toString(), "-V").redirectErrorStream(true).start();
            String output = new String(version.getInputStream().readAllBytes()).trim();
            version.waitFor(10, TimeUnit.SECONDS);
            return output;
        }
        catch (IOException ex) {
            return "memcached (version unknown)";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "memcached (version unknown)";
        }
    }

    /**
     * Deletes an item behind the store's back, as an eviction or a restart would lose it.
     *
     * @param key the item's key
     */
    public void delete(String key) {
        String answer = command("delete " + key).trim();
        if (!answer.equals("DELETED") && !answer.equals("NOT_FOUND")) {
            throw new IllegalStateException("delete " + key + " answered " + answer);
        }
    }

    /**
     * @param key an item's key
     * @return the item's value as the server has it, or null without the item
     */
    public String value(String key) {
        String[] lines = command("get " + key).split("\r\n");
        return lines[0].startsWith("VALUE ") ? lines[1] : null;
    }

    /**
     * Fills the server's memory with items of every small size until it answers "out of memory" for each (a server
     * run with {@code -M}; one that evicts never does).
     */
    public void fillUp() {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                        StandardCharsets.US_ASCII))) {
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            for (int size = 16; size <= 512; size += 16) {
                byte[] value = "x".repeat(size).getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < 1_000_000; i++) {
                    String set = "set fill-" + size + "-" + i + " 0 0 " + size + "\r\n";
                    out.write(set.getBytes(StandardCharsets.US_ASCII));
                    out.write(value);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (!"STORED".equals(in.readLine())) {
                        break;
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param name a general statistic ({@code stats}), such as {@code cmd_get}
     * @return its value now
     */
    public long stat(String name) {
        for (String line : command("stats").split("\r\n")) {
            if (line.startsWith("STAT " + name + " ")) {
                return Long.parseLong(line.substring(("STAT " + name + " ").length()));
            }
        }
        throw new IllegalArgumentException("no statistic " + name);
    }

    /** Sends one ascii command and reads its answer (up to END, or a one-line answer). */
    private String command(String command) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            StringBuilder answer = new StringBuilder();
            byte[] buffer = new byte[4096];
            while (!(answer.toString().endsWith("END\r\n") || (!answer.toString().startsWith("VALUE")
                    && !answer.toString().startsWith("STAT") && answer.toString().endsWith("\r\n")))) {
                int read = socket.getInputStream().read(buffer);
                if (read < 0) {
                    break;
                }
                answer.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
            }
            return answer.toString();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Stops the server (SIGTERM); its items are gone. */
    public synchronized void stop() {
        end(false);
    }

    /** Kills the server (SIGKILL), as a crash; its items are gone. */
    public synchronized void kill() {
        end(true);
    }

    /** Starts the server again on its port, empty. */
    public synchronized void restart() {
        if (process.isAlive()) {
            end(true);
        }
        process = launch();
    }

    /** Freezes the server (SIGSTOP): its connections stay open and nothing answers; it keeps its items. */
    public void pause() {
        ProcessSignals.freeze(process.pid());
    }

    /** Thaws a server frozen by {@link #pause()}. */
    public void resume() {
        ProcessSignals.thaw(process.pid());
    }

    /** @return whether the process runs */
    public boolean running() {
        return process.isAlive();
    }

    private void end(boolean kill) {
        Process running = process;
        ProcessSignals.thaw(running.pid()); // a frozen process does not handle SIGTERM until thawed
        if (kill) {
            running.destroyForcibly();
        }
        else {
            running.destroy();
        }
        try {
            if (!running.waitFor(20, TimeUnit.SECONDS)) {
                running.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        if (process.isAlive()) {
            end(true);
        }
    }
}
