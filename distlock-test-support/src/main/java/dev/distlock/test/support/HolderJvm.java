package dev.distlock.test.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.ProcessSignals;

/**
 * A lock holder in a JVM of its own, for crash tests: only a process shows what a crashed application node does to
 * its locks. The main class runs on this JVM's class path, takes a lock and prints {@code LOCKED <fencing token>};
 * the test then kills it with SIGKILL ({@link #kill()}) and checks that the lock is free again within its lease.
 * <p>
 * A node that keeps locking (the fault campaign's) reports on its output instead: read it with
 * {@link #forEachLine(Consumer)}, freeze and thaw it with {@link #pause()} and {@link #resume()}. A main that takes
 * commands on its standard input (a leadership candidate told to yield) is sent them with {@link #send(String)}.
 */
public final class HolderJvm implements AutoCloseable {

    /** The line a holder main prints once it holds the lock, followed by the fencing token. */
    public static final String LOCKED = "LOCKED ";

    /** The lines {@link #output()} keeps. */
    private static final int KEPT_LINES = 200;

    private final Process process;

    private final ArrayDeque<String> lastLines = new ArrayDeque<>();

    private HolderJvm(Process process) {
        this.process = process;
    }

    /**
     * The end of a holder main: takes the lock (or a permit of it) on a started service, prints {@link #LOCKED} and
     * the token, and holds it until the JVM is killed. One lock of another name in the same mode comes first: a
     * lease runs from the moment its acquire is sent, and a cold JVM's first acquire also opens the first
     * connection and loads the client's classes (seen: 1.3 s with MySQL Connector/J on a busy machine), which
     * could use up a short lease before its first renewal. The crash tests time what follows the lock, not that.
     *
     * @param service the holder's started lock service
     * @param name the lock name
     * @param permits the permits of the name (1 for a lock)
     * @throws InterruptedException never in practice: the process is killed while it holds the lock
     */
    public static void holdUntilKilled(StoreLockService service, String name, int permits)
            throws InterruptedException {
        // Waits as long as a busy machine may take: the start of the holder is not what the tests check.
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)).withPermits(permits);
        service.lock(name + "-warm-up", options).unlock();
        LockHandle handle = service.lock(name, options);
        System.out.println(LOCKED + handle.fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * @param main the holder's main class
     * @param args its arguments (where the store is, the lock name, the lease)
     * @return the started JVM
     * @throws IOException when the JVM cannot be started
     */
    public static HolderJvm start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Starts faster: the holder does little, and a busy machine starts several JVMs in a test run.
                "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        return new HolderJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * @param timeout how long to wait for the holder to lock
     * @return the fencing token of the holder's lock
     * @throws IllegalStateException with the holder's output when it ended, or did not lock in time
     * @throws InterruptedException when interrupted
     */
    public long awaitLocked(Duration timeout) throws InterruptedException {
        CompletableFuture<String> locked = new CompletableFuture<>();
        // The output is read to its end, not only to the LOCKED line: a holder whose output nobody reads blocks
        // once the pipe is full, watchdog and all, and what it printed later explains a failure (output()).
        forEachLine(line -> {
            if (line.startsWith(LOCKED)) {
                locked.complete(line);
            }
            else {
                remember(line);
            }
        }).thenRun(() -> locked.complete("EOF after:\n" + output()));
        try {
            String line = locked.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!line.startsWith(LOCKED)) {
                throw new IllegalStateException("The holder JVM ended without locking: " + line);
            }
            return Long.parseLong(line.substring(LOCKED.length()).trim());
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException("The holder JVM did not lock within " + timeout + "; it printed:\n"
                    + output(), ex);
        }
    }

    /**
     * @return the last lines the JVM printed, other than its LOCKED line, when read by
     *         {@link #awaitLocked(Duration)}: for a failure's message
     */
    public String output() {
        synchronized (lastLines) {
            return String.join("\n", lastLines);
        }
    }

    private void remember(String line) {
        synchronized (lastLines) {
            if (lastLines.size() == KEPT_LINES) {
                lastLines.removeFirst();
            }
            lastLines.addLast(line);
        }
    }

    /**
     * Kills the JVM with SIGKILL, as a crash: no shutdown hook, no release. Returns once it is gone.
     *
     * @throws InterruptedException when interrupted
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** @return the JVM's process id */
    public long pid() {
        return process.pid();
    }

    /** @return whether the JVM is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Freezes the JVM with SIGSTOP, as a long garbage-collection pause or a stalled VM would: its threads, its
     * watchdog included, stop; its connections stay open.
     */
    public void pause() {
        ProcessSignals.freeze(process.pid());
    }

    /** Lets a paused JVM go on (SIGCONT). */
    public void resume() {
        ProcessSignals.thaw(process.pid());
    }

    /**
     * Writes one line to the JVM's standard input, for a main that reads commands there.
     *
     * @param line the command, without the line break
     * @throws IllegalStateException when the line cannot be written (the JVM ended)
     */
    public synchronized void send(String line) {
        try {
            OutputStream input = process.getOutputStream();
            input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush(); // the JVM's input is buffered: without the flush the command waits for more
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not send '" + line + "' to the holder JVM " + process.pid(), ex);
        }
    }

    /**
     * Hands every line the JVM prints to a consumer, on a daemon thread of its own, until the JVM ends. Use it
     * instead of {@link #awaitLocked(Duration)}, not with it: both read the same output.
     *
     * @param consumer what to do with each line
     * @return completed once the output ended (the JVM is gone) and every line was handed over
     */
    public CompletableFuture<Void> forEachLine(Consumer<String> consumer) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    consumer.accept(line);
                }
            }
            catch (IOException ex) {
                // The JVM is gone.
            }
            finally {
                ended.complete(null);
            }
        }, "holder-jvm-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        return ended;
    }

    @Override
    public void close() {
        resume(); // a frozen process is killed too, but do not leave it stopped if the kill races
        process.destroyForcibly();
    }
}
