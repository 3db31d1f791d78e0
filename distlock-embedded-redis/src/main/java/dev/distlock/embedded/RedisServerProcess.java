package dev.distlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process (a server, a replica, a cluster node or a Sentinel) on a loopback port.
 * <p>
 * The process can be stopped, killed ({@code SIGKILL}), paused ({@code SIGSTOP}), resumed ({@code SIGCONT}) and
 * started again on the <em>same port and work directory</em>, which is what failure tests need. The work directory
 * is kept across restarts, so a restarted server loads the {@code dump.rdb} written by the last {@code SAVE} (or
 * its AOF when started with {@link Builder#appendOnly()}), and a cluster node or Sentinel finds the configuration
 * it rewrote. Snapshots are never taken automatically ({@code --save ""}), so a restart without a {@code SAVE}
 * starts empty.
 * <p>
 * Every server is started with a config file in its work directory (empty unless given), so that
 * {@code CONFIG REWRITE}, which Sentinel sends to the servers it reconfigures, works. Every process still running
 * when the JVM exits is killed by a shutdown hook, and the work directories are deleted (unless
 * {@value #KEEP_WORK_DIRS} is {@code true}), so a failed or interrupted test run leaves no server behind.
 */
public final class RedisServerProcess implements AutoCloseable {

    /**
     * Environment variable or system property: {@code true} keeps the work directories (logs, configs, data) when
     * the JVM exits, to look into a failed run.
     */
    public static final String KEEP_WORK_DIRS = "DISTLOCK_REDIS_KEEP_DIRS";

    private static final Logger log = LoggerFactory.getLogger(RedisServerProcess.class);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

    private static final Set<Path> WORK_DIRS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RedisServerProcess::cleanUp, "distlock-redis-cleanup"));
    }

    private final int port;

    private final List<String> extraArgs;

    /** How long the JVM's cleanup leaves this server to its owner at exit; zero: killed at once. */
    private volatile Duration exitGrace = Duration.ZERO;

    private final Path workDir;

    private final Path configFile;

    private final boolean sentinel;

    private volatile @Nullable Process process;

    private volatile boolean paused;

    private RedisServerProcess(int port, List<String> extraArgs, @Nullable String config, boolean sentinel) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.sentinel = sentinel;
        try {
            this.workDir = Files.createTempDirectory("distlock-redis-" + port + "-");
            WORK_DIRS.add(workDir);
            this.configFile = workDir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
            Files.writeString(configFile, config == null ? "" : config);
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
        return builder().args(extraArgs).start();
    }

    /**
     * Starts a server on the given loopback port.
     *
     * @param port the port
     * @param extraArgs further {@code redis-server} arguments
     * @return the running server
     */
    public static RedisServerProcess start(int port, String... extraArgs) {
        return builder().port(port).args(extraArgs).start();
    }

    /**
     * Starts describing a server with more options than {@link #startOnFreePort(String...)}.
     *
     * @return a builder for one server on a free loopback port
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a loopback port that nothing listened on a moment ago.
     *
     * @return the port
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
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

    /** @return host and port */
    public RedisAddress address() {
        return new RedisAddress(host(), port);
    }

    /** @return the directory holding this server's config file, log, {@code dump.rdb}, AOF and cluster config */
    public Path workDir() {
        return workDir;
    }

    /** @return true for a Sentinel ({@code --sentinel}) */
    public boolean isSentinel() {
        return sentinel;
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

    /** @return true while the process is frozen by {@link #pause()} */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Sends one command on a new connection, with {@link RespConnection#DEFAULT_TIMEOUT}.
     *
     * @param args the command and its arguments, e.g. {@code "ROLE"}
     * @return the reply, as described in {@link RespConnection}
     */
    public @Nullable Object call(String... args) {
        return RespConnection.call(address(), RespConnection.DEFAULT_TIMEOUT, args);
    }

    /** Starts the process (again) on this server's port and work directory and waits until it answers. */
    public synchronized void start() {
        startWith();
    }

    /**
     * Starts the process (again) like {@link #start()}, with further arguments for this run only; they come after
     * the ones given at creation, so they win, e.g. {@code "--replicaof", host, port} to bring a crashed master back
     * as a replica.
     *
     * @param runArgs further {@code redis-server} arguments for this run
     */
    public synchronized void startWith(String... runArgs) {
        if (isRunning()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(RedisServerBinary.path().toString());
        command.add(configFile.toString());
        if (sentinel) {
            command.add("--sentinel");
        }
        command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--daemonize", "no",
                "--dir", workDir.toString()));
        if (!sentinel) {
            command.addAll(List.of("--save", "", "--appendonly", "no"));
        }
        command.addAll(extraArgs);
        command.addAll(List.of(runArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("redis.log").toFile()));
        Process started;
        try {
            started = builder.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
        process = started;
        paused = false;
        RUNNING.add(this);
        awaitReady(started);
        log.debug("redis-server pid {} listening on {}", started.pid(), port);
    }

    private void awaitReady(Process started) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                RUNNING.remove(this);
                process = null;
                throw new IllegalStateException("redis-server on port " + port + " exited: " + logTail());
            }
            if (answersPing()) {
                return;
            }
            try {
                started.waitFor(20, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        kill();
        throw new IllegalStateException("redis-server on port " + port + " did not answer within " + START_TIMEOUT);
    }

    /**
     * A reply to PING (also -NOAUTH) means the server is ready to serve, except -LOADING: a server that is still
     * reading its RDB or AOF after a restart answers every command with that error.
     */
    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\n' && line.length() < 100; b = in.read()) {
                line.append((char) b);
            }
            String reply = line.toString();
            return reply.startsWith("+") || (reply.startsWith("-") && !reply.startsWith("-LOADING"));
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
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
        paused = false;
        RUNNING.remove(this);
    }

    /**
     * Lets this server outlive the start of the JVM's shutdown by up to {@code grace}: the JVM's cleanup, which
     * otherwise kills every server at once, first waits that long for the server's owner to {@link #stop()} it. For
     * an application that starts its own Redis and still needs it while it shuts down (to release its locks), and
     * stops it last.
     *
     * @param grace how long to wait for the owner at JVM exit before killing the server
     */
    public void stopAtExitWithin(Duration grace) {
        this.exitGrace = grace;
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
        paused = false;
        RUNNING.remove(this);
    }

    /** Freezes the server with {@code SIGSTOP}: connections stay open but nothing is answered. */
    public synchronized void pause() {
        if (isRunning()) {
            signal("STOP");
            paused = true;
        }
    }

    /** Lets a paused server go on ({@code SIGCONT}); does nothing when it is not paused. */
    public synchronized void resume() {
        if (isRunning()) {
            signal("CONT");
            paused = false;
        }
    }

    /**
     * Stops the server gracefully and starts it again on the same port and work directory. With the default
     * {@code --save ""} nothing is saved on the way down, so it comes back with the data of the last {@code SAVE}
     * (or its AOF), or empty.
     */
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

    /**
     * Returns the last lines of this server's log, for failure messages.
     *
     * @param lines how many lines
     * @return the lines, or a note that there is no log
     */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(workDir.resolve("redis.log"));
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException | UncheckedIOException ex) {
            return "(no log)";
        }
    }

    private String logTail() {
        return logTail(10);
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return (sentinel ? "redis-sentinel[" : "redis-server[") + host() + ":" + port + ", pid " + pid() + "]";
    }

    private static void cleanUp() {
        long start = System.nanoTime();
        for (RedisServerProcess server : List.copyOf(RUNNING)) {
            // The owner's own shutdown (another hook, running now) stops it; wait for that, bounded.
            while (RUNNING.contains(server) && System.nanoTime() - start < server.exitGrace.toNanos()) {
                try {
                    Thread.sleep(20);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        RUNNING.forEach(RedisServerProcess::kill);
        String keep = System.getProperty(KEEP_WORK_DIRS, System.getenv(KEEP_WORK_DIRS));
        if (Boolean.parseBoolean(keep)) {
            WORK_DIRS.forEach(dir -> System.err.println("kept redis work directory " + dir));
            return;
        }
        for (Path dir : WORK_DIRS) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (IOException | UncheckedIOException ex) {
                // best effort: a leftover temp directory is harmless
            }
        }
    }

    /**
     * Describes one server before it is started: port, arguments, persistence, Sentinel mode.
     */
    public static final class Builder {

        private int port;

        private final List<String> args = new ArrayList<>();

        private @Nullable String config;

        private boolean sentinel;

        private Builder() {
        }

        /**
         * Uses this port instead of a free one.
         *
         * @param port the loopback port; 0 picks a free one (the default)
         * @return this builder
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Adds {@code redis-server} arguments; later arguments win over earlier ones and over the defaults.
         *
         * @param args e.g. {@code "--requirepass", "secret"}
         * @return this builder
         */
        public Builder args(String... args) {
            this.args.addAll(List.of(args));
            return this;
        }

        /**
         * Turns the append-only file on, written on every command ({@code appendfsync always}), so that a server
         * killed with {@code SIGKILL} and started again has every acknowledged write.
         *
         * @return this builder
         */
        public Builder appendOnly() {
            return args("--appendonly", "yes", "--appendfsync", "always");
        }

        /**
         * Writes this text to the server's config file before the first start (the file is the first argument of
         * {@code redis-server}, and the server may rewrite it).
         *
         * @param text the configuration
         * @return this builder
         */
        public Builder config(String text) {
            this.config = text;
            return this;
        }

        /**
         * Starts a Sentinel ({@code redis-server sentinel.conf --sentinel}) instead of a data server; give its
         * {@code sentinel monitor ...} lines with {@link #config(String)}.
         *
         * @return this builder
         */
        public Builder sentinel() {
            this.sentinel = true;
            return this;
        }

        /**
         * Starts the server and waits until it answers. With no fixed port, a port taken by someone else between
         * choosing and binding it is retried with another one.
         *
         * @return the running server
         */
        public RedisServerProcess start() {
            if (port != 0) {
                RedisServerProcess server = new RedisServerProcess(port, args, config, sentinel);
                server.start();
                return server;
            }
            IllegalStateException last = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                RedisServerProcess server = new RedisServerProcess(freePort(), args, config, sentinel);
                try {
                    server.start();
                    return server;
                }
                catch (IllegalStateException ex) {
                    last = ex;
                }
            }
            throw last;
        }
    }
}
