package dev.distlock.embedded;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

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
 * Every server has a config file in its work directory (empty unless given), so that {@code CONFIG REWRITE} works.
 * Every process still running when the JVM exits is killed by a shutdown hook, and the work directories are deleted
 * (unless {@value #KEEP_WORK_DIRS} is {@code true}), so a failed or interrupted test run leaves no server behind.
 */
public final class RedisServerProcess implements AutoCloseable {

    /**
     * Environment variable or system property: {@code true} keeps the work directories (logs, configs, data) when
     * the JVM exits, to look into a failed run.
     */
    public static final String KEEP_WORK_DIRS = "DISTLOCK_REDIS_KEEP_DIRS";

    private final ServerLifecycle lifecycle;

    private RedisServerProcess(int port, List<String> extraArgs, @Nullable String config, boolean sentinel,
            Map<String, String> environment) {
        this.lifecycle = new ServerLifecycle(port, sentinel, ServerWorkDir.create(port, sentinel, config), extraArgs,
                environment);
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
     * @param port the loopback port
     * @param extraArgs further {@code redis-server} arguments
     * @return a server started on that port
     */
    public static RedisServerProcess start(int port, String... extraArgs) {
        return builder().port(port).args(extraArgs).start();
    }

    /** @return a builder for one server on a free loopback port, with more options than {@link #startOnFreePort} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the TCP port */
    public int port() {
        return lifecycle.port();
    }

    /** @return the host to connect to */
    public String host() {
        return "127.0.0.1";
    }

    /** @return host and port */
    public RedisAddress address() {
        return new RedisAddress(host(), port());
    }

    /** @return the directory holding this server's config file, log, {@code dump.rdb}, AOF and cluster config */
    public Path workDir() {
        return lifecycle.workDir().dir();
    }

    /** @return true for a Sentinel ({@code --sentinel}) */
    public boolean isSentinel() {
        return lifecycle.isSentinel();
    }

    /** @return the operating-system process id, or -1 when not running */
    public long pid() {
        return lifecycle.pid();
    }

    /** @return true while the process is alive (also when paused) */
    public boolean isRunning() {
        return lifecycle.isRunning();
    }

    /** @return true while the process is frozen by {@link #pause()} */
    public boolean isPaused() {
        return lifecycle.isPaused();
    }

    /**
     * @param args one command and its arguments, e.g. {@code "ROLE"}, sent on a new connection with
     *        {@link RespConnection#DEFAULT_TIMEOUT}
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
        lifecycle.start(runArgs);
    }

    /** Stops the server gracefully ({@code SIGTERM}; {@code SIGKILL} after 10 s) and waits until it exited. */
    public synchronized void stop() {
        lifecycle.stop();
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
        lifecycle.stopAtExitWithin(grace);
    }

    /** Kills the server with {@code SIGKILL}, as a crash would, and waits until it is gone. */
    public synchronized void kill() {
        lifecycle.kill();
    }

    /** Freezes the server with {@code SIGSTOP}: connections stay open but nothing is answered. */
    public synchronized void pause() {
        lifecycle.pause();
    }

    /** Lets a paused server go on ({@code SIGCONT}); does nothing when it is not paused. */
    public synchronized void resume() {
        lifecycle.resume();
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

    /**
     * @param lines how many lines
     * @return the last lines of this server's log, for failure messages, or a note that there is no log
     */
    public String logTail(int lines) {
        return lifecycle.workDir().logTail(lines);
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return (isSentinel() ? "redis-sentinel[" : "redis-server[") + host() + ":" + port() + ", pid " + pid() + "]";
    }

    /** Describes one server before it is started: port, arguments, persistence, Sentinel mode. */
    public static final class Builder {

        private int port;

        private final List<String> args = new ArrayList<>();

        private @Nullable String config;

        private boolean sentinel;

        private final Map<String, String> environment = new HashMap<>();

        private Builder() {
        }

        /**
         * @param port the loopback port to use instead of a free one; 0 picks a free one (the default)
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
         * killed with {@code SIGKILL} and started again has every acknowledged write; rewritten after every start
         * and at every 1 MB of growth (Redis's default is 64 MB), since a restart reads it all.
         *
         * @return this builder
         */
        public Builder appendOnly() {
            return args("--appendonly", "yes", "--appendfsync", "always", "--auto-aof-rewrite-min-size", "1mb");
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
         * @param name an environment variable of the server's process, in every run, e.g. {@code LD_PRELOAD} of a
         *        library that fakes its clock
         * @param value its value
         * @return this builder
         */
        public Builder environment(String name, String value) {
            environment.put(name, value);
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
            return LoopbackPorts.startOn(port, chosen -> {
                RedisServerProcess server = new RedisServerProcess(chosen, args, config, sentinel, environment);
                server.start();
                return server;
            });
        }
    }
}
