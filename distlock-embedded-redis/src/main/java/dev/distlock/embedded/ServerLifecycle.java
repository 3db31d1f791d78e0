package dev.distlock.embedded;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, stops and signals the process of one {@link RedisServerProcess}, across its restarts on the same port and
 * work directory: {@code SIGTERM}, {@code SIGKILL}, {@code SIGSTOP} and {@code SIGCONT}, which is what failure tests
 * need. Java's {@link Process} sends only the first two, so freezing and resuming go through the {@code kill}
 * command. One thread at a time starts, stops or signals it (the JVM's cleanup included, see {@link ExitCleanup}).
 */
final class ServerLifecycle {

    /** The server's own category, so that a logging configuration written for it still applies. */
    private static final Logger log = LoggerFactory.getLogger(RedisServerProcess.class);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    /** How long a server may take to stop on {@code SIGTERM} (it may be writing a snapshot) before it is killed. */
    private static final long STOP_SECONDS = 10;

    private final int port;

    private final boolean sentinel;

    private final ServerWorkDir workDir;

    private final List<String> extraArgs;

    private final Map<String, String> environment;

    private volatile @Nullable Process process;

    private volatile boolean paused;

    /** How long the JVM's cleanup leaves this server to its owner at exit; zero: killed at once. */
    private volatile Duration exitGrace = Duration.ZERO;

    /**
     * @param port the server's loopback port
     * @param sentinel true for a Sentinel
     * @param workDir its work directory
     * @param extraArgs the {@code redis-server} arguments given at creation, for every run
     * @param environment variables added to the process's environment, in every run
     */
    ServerLifecycle(int port, boolean sentinel, ServerWorkDir workDir, List<String> extraArgs,
            Map<String, String> environment) {
        this.port = port;
        this.sentinel = sentinel;
        this.workDir = workDir;
        this.extraArgs = List.copyOf(extraArgs);
        this.environment = Map.copyOf(environment);
    }

    /** @return the server's loopback port */
    int port() {
        return port;
    }

    /** @return true for a Sentinel */
    boolean isSentinel() {
        return sentinel;
    }

    /** @return the server's work directory, kept across its runs */
    ServerWorkDir workDir() {
        return workDir;
    }

    /** @param grace how long the JVM's cleanup waits for the owner to stop the server before it kills it */
    void stopAtExitWithin(Duration grace) {
        this.exitGrace = grace;
    }

    /** @return how long the JVM's cleanup waits for the owner to stop the server */
    Duration exitGrace() {
        return exitGrace;
    }

    /** @return the operating-system process id, or -1 when not running */
    long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /** @return true while the process is alive (also when paused) */
    boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** @return true while the process is frozen by {@link #pause()} */
    boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Starts the process unless it runs, and waits until it answers. An append-only server then rewrites its file
     * ({@code BGREWRITEAOF}): Redis rewrites it by itself only once it doubled since the size loaded at the start, so
     * a server restarted every half minute (the fault campaign) keeps a file that only grows. One campaign's reached
     * 16.5 MB in 49 minutes, which a restart took 15 s to load under libfaketime (1 s without it), longer than a start
     * may take: twice a 60-minute campaign ended there.
     *
     * @param runArgs further arguments for this run only, after the ones given at creation so that they win
     * @throws IllegalStateException when the process exited (with the end of its log) or did not answer in time
     */
    synchronized void start(String... runArgs) {
        if (isRunning()) {
            return;
        }
        List<String> args = new ArrayList<>(extraArgs);
        args.addAll(List.of(runArgs));
        Process started = ServerLaunch.start(workDir, sentinel, port, args, environment);
        process = started;
        paused = false;
        ExitCleanup.running(this); // already while it starts: a JVM exit during the wait kills it too
        switch (ServerReadiness.await(started, port, START_TIMEOUT)) {
            case ANSWERED -> {
                log.debug("redis-server pid {} listening on {}", started.pid(), port);
                if (appendOnly(args)) {
                    rewriteAppendOnlyFile();
                }
            }
            case EXITED -> {
                gone();
                throw new IllegalStateException("redis-server on port " + port + " exited: " + workDir.logTail(10));
            }
            case SILENT -> {
                kill();
                throw new IllegalStateException("redis-server on port " + port + " did not answer within "
                        + START_TIMEOUT + ": " + workDir.logTail(10));
            }
        }
    }

    /** @return whether the last {@code --appendonly} of the arguments turns the append-only file on */
    static boolean appendOnly(List<String> args) {
        int at = args.lastIndexOf("--appendonly");
        return at >= 0 && at + 1 < args.size() && "yes".equalsIgnoreCase(args.get(at + 1));
    }

    /**
     * Rewrites the file and waits until the rewrite ended, so that the server's next writes count from the rewritten
     * size (writes made during a rewrite are added to it, and Redis's own next rewrite waits for twice that).
     */
    private void rewriteAppendOnlyFile() {
        RedisAddress address = new RedisAddress("127.0.0.1", port);
        try {
            RespConnection.call(address, RespConnection.DEFAULT_TIMEOUT, "BGREWRITEAOF");
            Poll.until("the append-only file of port " + port + " rewritten", START_TIMEOUT, () -> {
                Map<String, String> persistence = Replies.info(RespConnection.call(address,
                        RespConnection.DEFAULT_TIMEOUT, "INFO", "persistence"));
                return "0".equals(persistence.get("aof_rewrite_in_progress"))
                        && "0".equals(persistence.get("aof_rewrite_scheduled")) ? persistence : null;
            });
        }
        catch (RespErrorException | UncheckedIOException | IllegalStateException ex) {
            // A server gone or frozen meanwhile is its caller's next finding; a file not rewritten is only larger.
            log.warn("The append-only file of port {} was not rewritten after its start: {}", port, ex.getMessage());
        }
    }

    /** Sends {@code SIGTERM} and waits until the process exited, sending {@code SIGKILL} after 10 s. */
    synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        resume(); // a paused process cannot handle SIGTERM
        p.destroy();
        try {
            if (!p.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        gone();
    }

    /** Kills the process with {@code SIGKILL}, as a crash would, and waits until it is gone. */
    synchronized void kill() {
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
        gone();
    }

    private void gone() {
        process = null;
        paused = false;
        ExitCleanup.stopped(this);
    }

    /** Freezes the process ({@code SIGSTOP}). */
    synchronized void pause() {
        if (isRunning()) {
            ProcessSignals.freeze(pid());
            paused = true;
        }
    }

    /** Lets a frozen process go on ({@code SIGCONT}). */
    synchronized void resume() {
        if (isRunning()) {
            ProcessSignals.thaw(pid());
            paused = false;
        }
    }
}
