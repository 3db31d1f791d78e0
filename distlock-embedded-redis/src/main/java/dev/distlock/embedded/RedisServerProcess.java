package dev.distlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process on a loopback port.
 * <p>
 * The process can be stopped, killed ({@code SIGKILL}), paused ({@code SIGSTOP}), resumed ({@code SIGCONT}) and
 * restarted on the same port, which is what failure tests need. Every process still running when the JVM exits
 * is killed by a shutdown hook, so a failed or interrupted test run leaves no server behind.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServerProcess.class);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServerProcess::kill),
                "distlock-redis-cleanup"));
    }

    private final int port;

    private final List<String> extraArgs;

    private final Path workDir;

    private volatile Process process;

    private RedisServerProcess(int port, List<String> extraArgs) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        try {
            this.workDir = Files.createTempDirectory("distlock-redis-" + port + "-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Starts a server on a free loopback port.
     *
     * @param extraArgs further {@code redis-server} arguments, e.g. {@code "--requirepass", "secret"}
     * @return the running server
     */
    public static RedisServerProcess startOnFreePort(String... extraArgs) {
        IllegalStateException last = null;
        // A free port found by binding port 0 can be taken by someone else before redis binds it: retry.
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return start(freePort(), extraArgs);
            }
            catch (IllegalStateException ex) {
                last = ex;
            }
        }
        throw last;
    }

    /**
     * Starts a server on the given loopback port.
     *
     * @param port the port
     * @param extraArgs further {@code redis-server} arguments
     * @return the running server
     */
    public static RedisServerProcess start(int port, String... extraArgs) {
        RedisServerProcess server = new RedisServerProcess(port, List.of(extraArgs));
        server.start();
        return server;
    }

    /**
     * Returns a loopback port that nothing listened on a moment ago.
     *
     * @return the port
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Tells whether something accepts TCP connections on the loopback port.
     *
     * @param port the port
     * @return true when a connection could be opened
     */
    public static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** @return the TCP port */
    public int port() {
        return port;
    }

    /** @return the host to connect to */
    public String host() {
        return "127.0.0.1";
    }

    /** @return the operating-system process id, or -1 when not running */
    public long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /** @return true while the process is alive (also when paused) */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Starts the process (again) on this server's port and waits until it answers. */
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(RedisServerBinary.path().toString());
        command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", workDir.toString()));
        command.addAll(extraArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("redis.log").toFile()));
        try {
            process = builder.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
        RUNNING.add(this);
        awaitReady();
        log.debug("redis-server pid {} listening on {}", pid(), port);
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                RUNNING.remove(this);
                throw new IllegalStateException("redis-server on port " + port + " exited: " + logTail());
            }
            if (answersPing()) {
                return;
            }
            try {
                process.waitFor(20, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        kill();
        throw new IllegalStateException("redis-server on port " + port + " did not answer within " + START_TIMEOUT);
    }

    /** A RESP reply of any kind (also -NOAUTH) means the server is ready to serve. */
    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            int first = in.read();
            return first == '+' || first == '-';
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** Stops the server gracefully ({@code SIGTERM}; {@code SIGKILL} after 10 s) and waits until it exited. */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        resume(); // a paused process cannot handle SIGTERM
        p.destroy();
        try {
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
        RUNNING.remove(this);
    }

    /** Kills the server with {@code SIGKILL}, as a crash would, and waits until it is gone. */
    public synchronized void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
        RUNNING.remove(this);
    }

    /** Freezes the server with {@code SIGSTOP}: connections stay open but nothing is answered. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused server go on ({@code SIGCONT}). */
    public void resume() {
        signal("CONT");
    }

    /** Stops the server and starts it again on the same port, with an empty data set. */
    public synchronized void restart() {
        stop();
        start();
    }

    private void signal(String name) {
        long pid = pid();
        if (pid < 0) {
            return;
        }
        try {
            int exit = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " exited with " + exit);
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(workDir.resolve("redis.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        }
        catch (IOException ex) {
            return "(no log)";
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "redis-server[127.0.0.1:" + port + ", pid " + pid() + "]";
    }
}
