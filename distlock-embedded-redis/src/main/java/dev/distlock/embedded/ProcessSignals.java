package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Freezes ({@code SIGSTOP}) and thaws ({@code SIGCONT}) a server or JVM that a test started: the one way the test
 * harnesses do it.
 * <p>
 * {@link #freeze} returns only once every thread of the process has stopped. {@code kill(2)} wakes one thread of
 * the target to take a process-wide {@code SIGSTOP}, and the other threads stop only when that one has been
 * scheduled and begun the group stop. Until then a multi-threaded server (Memcached's worker threads, etcd,
 * {@code mariadbd}) goes on answering, so on a busy machine a request sent right after {@code kill} returned could
 * still be served by a server the test believes frozen. Linux's {@code /proc/<pid>/task/<tid>/stat} shows each
 * thread's state; where there is no {@code /proc} the wait is skipped. {@code SIGCONT} needs no wait: the kernel
 * wakes every stopped thread while it delivers it.
 */
public final class ProcessSignals {

    /** Far longer than a scheduling delay; a freeze that takes this long is reported, not waited out. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private ProcessSignals() {
    }

    /**
     * Sends {@code SIGSTOP} and waits until every thread of the process is stopped. A freeze whose threads do not
     * all stop in time is undone ({@code SIGCONT}) before the exception: the caller reports a fault that did not
     * happen, and nothing stays frozen that the caller believes running (a child JVM left stopped this way was
     * never thawed, and the fault campaign reported it as not granted any lock again).
     *
     * @param pid the process; nothing happens if it has exited
     * @throws IllegalStateException if {@code kill} fails on a live process, or the threads do not stop in time
     */
    public static void freeze(long pid) {
        freeze(pid, Path.of("/proc", Long.toString(pid), "task"), STOP_TIMEOUT);
    }

    /**
     * @param tasks where the process' threads' states are read
     * @param timeout how long they may take to stop
     */
    static void freeze(long pid, Path tasks, Duration timeout) {
        if (send(pid, "STOP")) {
            if (Files.isDirectory(tasks)) {
                try {
                    Poll.untilTrue("every thread of process " + pid + " to stop", timeout,
                            () -> runningThreads(tasks).isEmpty() ? Boolean.TRUE : Poll.notYet("running: "
                                    + runningThreads(tasks)));
                }
                catch (RuntimeException ex) {
                    thaw(pid);
                    throw ex;
                }
            }
        }
    }

    /**
     * Sends {@code SIGCONT}.
     *
     * @param pid the process; nothing happens if it has exited
     * @throws IllegalStateException if {@code kill} fails on a live process
     */
    public static void thaw(long pid) {
        send(pid, "CONT");
    }

    /**
     * @param tasks a process's {@code /proc/<pid>/task}
     * @return the threads that neither are stopped nor have exited, as {@code tid:state}; empty once the process
     *         has exited
     */
    static List<String> runningThreads(Path tasks) {
        try (Stream<Path> threads = Files.list(tasks)) {
            return threads.map(ProcessSignals::state).filter(state -> !state.isEmpty() && "TtZX".indexOf(
                    state.charAt(state.length() - 1)) < 0).toList();
        }
        catch (NoSuchFileException ex) {
            return List.of();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A process's state from {@code /proc}, for a message that must say whether it is frozen.
     *
     * @param pid the process
     * @return its state letter ({@code R} running, {@code S} sleeping, {@code T} stopped, ...), or why there is none
     */
    public static String state(long pid) {
        try {
            return String.valueOf(stateLetter(Path.of("/proc", Long.toString(pid))));
        }
        catch (IOException | RuntimeException ex) {
            return "unknown (" + ex.getClass().getSimpleName() + ")";
        }
    }

    /** @return {@code tid:state} of one of {@code /proc/<pid>/task}'s threads, empty once it has exited */
    private static String state(Path thread) {
        try {
            return thread.getFileName() + ":" + stateLetter(thread);
        }
        catch (IOException ex) {
            return ""; // the thread has exited
        }
    }

    /** @return the state field of a process's or thread's stat line, whose name field may hold spaces and ')' */
    private static char stateLetter(Path processOrThread) throws IOException {
        String stat = Files.readString(processOrThread.resolve("stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    /** @return whether the signal was sent, false if the process had already exited */
    private static boolean send(long pid, String signal) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try {
                int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
                if (exit == 0) {
                    return true;
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    throw new IllegalStateException("kill -" + signal + " " + pid + " exited with " + exit);
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not run kill -" + signal + " " + pid, ex);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while signalling " + pid, ex);
            }
        }
        return false;
    }
}
