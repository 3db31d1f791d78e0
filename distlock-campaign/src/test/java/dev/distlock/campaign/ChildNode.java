package dev.distlock.campaign;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.embedded.ProcessSignals;
import dev.distlock.test.support.HolderJvm;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The test JVM's side of a node in a child JVM: starts it ({@link HolderJvm}), turns its event lines into grants of
 * the {@link Campaign}'s history, and kills, pauses and restarts it for the nemesis. A grant whose JVM is killed in
 * the middle of the work is recorded as ending at the kill: a dead process does no more work. So is a leadership
 * term: a dead leader leads no more.
 * <p>
 * A frozen JVM (SIGSTOP) cannot be told anything: a leader frozen past its lease is told {@code revoked} only once
 * thawed, while another node may lead already. A term told {@code revoked} (or of its loss) within
 * {@link #TOLD_AFTER_THAW} of a thaw is therefore counted on until that freeze began; a later {@code revoked}
 * stays late. (A lock holder needs no such rule: it looks at {@code isHeld()}, which a thawed JVM answers at once.)
 */
final class ChildNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ChildNode.class);

    private final String node;

    private final String[] args;

    private final Campaign.Recorder recorder;

    /**
     * Grants whose work began and has not ended yet: key name/token, value {token, start, 1 once told lost, the last
     * moment it counted on the lock before it was told, when its acquire was called, its fixed lease's deadline or
     * {@link Long#MAX_VALUE}}.
     */
    private final Map<String, long[]> open = new ConcurrentHashMap<>();

    /** How soon after a thaw a frozen leader must be told; see the class comment. */
    static final long TOLD_AFTER_THAW = TimeUnit.MILLISECONDS.toNanos(500);

    /** The leadership term in progress: {token, granted}, or null. */
    private volatile long @Nullable [] term;

    /** The freezes so far: {frozen after, thawed before} ({@link System#nanoTime()}), the last one open until thawed. */
    private final List<long[]> freezes = new CopyOnWriteArrayList<>();

    private volatile HolderJvm jvm;

    private volatile CompletableFuture<Void> outputEnded;

    private volatile boolean paused;

    /** The lines of the JVM's output read so far, and the last few, for a liveness violation's message. */
    private final AtomicLong linesRead = new AtomicLong();

    private final Deque<String> lastLines = new ArrayDeque<>();

    ChildNode(String node, Campaign.Recorder recorder, String... args) {
        this.node = node;
        this.args = args;
        this.recorder = recorder;
        this.jvm = start();
    }

    private HolderJvm start() {
        try {
            HolderJvm started = HolderJvm.start(CampaignNodeMain.class, args);
            // Everything the JVM prints is kept, for looking into a violation.
            Path logFile = Path.of("target", "campaign-logs", node + "-" + started.pid() + ".log");
            Files.createDirectories(logFile.getParent());
            BufferedWriter logWriter = Files.newBufferedWriter(logFile);
            outputEnded = started.forEachLine(line -> {
                try {
                    logWriter.write(System.nanoTime() / 1000 + " " + line + "\n");
                    logWriter.flush();
                }
                catch (IOException ex) {
                    // The log is a help, not the check.
                }
                linesRead.incrementAndGet();
                synchronized (lastLines) {
                    lastLines.addLast(System.nanoTime() / 1000 + " " + (line.length() > 200 ? line.substring(0, 200)
                            : line));
                    if (lastLines.size() > 4) {
                        lastLines.removeFirst();
                    }
                }
                try {
                    onLine(line);
                }
                catch (RuntimeException ex) {
                    log.warn("{}: cannot read the line '{}'", node, line, ex);
                }
            });
            return started;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the child JVM of " + node, ex);
        }
    }

    private void onLine(String line) {
        if (!line.startsWith(CampaignNodeMain.PREFIX)) {
            if (line.contains("Exception") || line.contains("ERROR")) {
                log.debug("{}: {}", node, line);
            }
            return;
        }
        String[] f = line.substring(CampaignNodeMain.PREFIX.length()).split(" ");
        switch (f[0]) {
            case "BEGIN" -> open.put(f[1] + "/" + f[2], new long[] { Long.parseLong(f[2]), Long.parseLong(f[3]), 0,
                    0, Long.parseLong(f[5]), Long.parseLong(f[6]) });
            case "LOST" -> {
                long[] grant = open.get(f[1] + "/" + f[2]);
                if (grant != null) {
                    grant[2] = 1;
                    grant[3] = Long.parseLong(f[3]);
                }
            }
            case "END" -> {
                open.remove(f[1] + "/" + f[2]);
                recorder.grant(f[1], node, Long.parseLong(f[2]), Long.parseLong(f[8]), Long.parseLong(f[3]),
                        Long.parseLong(f[4]), Boolean.parseBoolean(f[5]), Long.parseLong(f[6]),
                        Boolean.parseBoolean(f[7]));
            }
            case "TERM_BEGIN" -> term = new long[] { Long.parseLong(f[1]), Long.parseLong(f[2]) };
            case "TERM_END" -> {
                term = null;
                long granted = Long.parseLong(f[2]);
                long told = Long.parseLong(f[4]);
                recorder.term(node, Long.parseLong(f[1]), granted, Long.parseLong(f[3]), toldAfterFreeze(granted,
                        told), Boolean.parseBoolean(f[5]));
            }
            case "FAIL" -> recorder.failure(node, FailureKind.valueOf(f[1]), f.length > 2
                    ? String.join(" ", java.util.Arrays.copyOfRange(f, 2, f.length)) : "");
            default -> {
                // READY and anything newer: nothing to record.
            }
        }
    }

    /** Kills the JVM (SIGKILL); grants in the middle of their work end now. */
    void kill() throws InterruptedException {
        jvm.kill();
        long now = System.nanoTime();
        paused = false;
        try {
            // Every line the JVM wrote before it died is read first: a grant it ended is recorded as it ended.
            outputEnded.get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException("The output of " + node + "'s killed JVM did not end", ex);
        }
        // A hold cut by the kill ends at the kill; it counts as reported lost only if the JVM said so before. Its
        // holder counted on it until the kill at the latest, and on a fixed lease not past the lease's deadline,
        // after which isHeld() is false (a kill just after the deadline often comes before the holder's next look).
        open.forEach((key, value) -> recorder.grant(key.substring(0, key.indexOf('/')), node, value[0], value[4],
                value[1], now, value[2] == 1, value[2] == 1 ? value[3] : Math.min(now, value[5]), false));
        open.clear();
        long[] cut = term;
        term = null;
        if (cut != null) {
            recorder.term(node, cut[0], cut[1], now, now, false);
        }
    }

    /** Starts a new JVM in place of a killed one. */
    void restart() {
        jvm = start();
    }

    /**
     * Freezes the JVM. The freeze counts from just before the signal, and ends with {@link #resume()}, also when not
     * every thread stopped in time (the JVM is thawed then, and the nemesis reports the fault as not injected):
     * most of its threads were stopped meanwhile.
     */
    void pause() {
        freezes.add(new long[] { System.nanoTime(), Long.MAX_VALUE });
        paused = true;
        try {
            jvm.pause();
        }
        catch (RuntimeException ex) {
            resume();
            throw ex;
        }
    }

    void resume() {
        if (paused) {
            freezes.get(freezes.size() - 1)[1] = System.nanoTime();
            jvm.resume();
            paused = false;
        }
    }

    /**
     * @return when a leader granted then and told at {@code told} counted on its term until: the start of a freeze
     *         of the term that {@code told} followed within {@link #TOLD_AFTER_THAW} of the thaw, else {@code told}
     */
    private long toldAfterFreeze(long granted, long told) {
        for (long[] freeze : freezes) {
            if (freeze[0] > granted && freeze[1] <= told && told - freeze[1] <= TOLD_AFTER_THAW) {
                return freeze[0];
            }
        }
        return told;
    }

    /** @return how many lines of the JVM's output were read so far (all its JVMs) */
    long linesRead() {
        return linesRead.get();
    }

    /**
     * What the JVM is doing, for a liveness violation's message (CI shows the message, not the logs): whether it
     * runs, the last lines it printed, and where its worker threads are ({@code jcmd Thread.print}, kept whole in
     * {@code target/campaign-logs}).
     *
     * @return one line
     */
    String describe() {
        StringBuilder text = new StringBuilder(node).append(" (pid ").append(jvm.pid())
                .append(jvm.isAlive() ? ", running" : ", ended").append(paused ? ", frozen" : "")
                .append(", process state ").append(ProcessSignals.state(jvm.pid())).append(")");
        synchronized (lastLines) {
            text.append(", last lines (µs) ").append(lastLines);
        }
        if (jvm.isAlive()) {
            text.append(", threads: ").append(workerThreads());
        }
        return text.toString();
    }

    /** @return each worker's and yielder's state and its topmost frames of distlock's code */
    private String workerThreads() {
        try {
            Path dump = Path.of("target", "campaign-logs", node + "-" + jvm.pid() + "-threads.txt");
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(jvm.pid()), "Thread.print").redirectErrorStream(true).redirectOutput(dump.toFile())
                    .start();
            if (!jcmd.waitFor(20, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return "jcmd did not answer in 20 s";
            }
            StringBuilder threads = new StringBuilder();
            int frames = 0;
            List<String> lines = Files.readAllLines(dump);
            for (String line : lines) {
                if (line.startsWith("\"")) {
                    boolean worker = line.startsWith("\"worker-") || line.startsWith("\"campaign-");
                    frames = worker ? 3 : 0;
                    if (worker) {
                        threads.append(" | ").append(line, 0, line.indexOf('"', 1) + 1);
                    }
                }
                else if (frames > 0 && line.contains("java.lang.Thread.State")) {
                    threads.append(' ').append(line.trim().substring("java.lang.Thread.State: ".length()));
                }
                else if (frames > 0 && line.trim().startsWith("at dev.distlock")) {
                    threads.append(' ').append(line.trim().substring(3));
                    frames--;
                }
            }
            return threads.isEmpty() ? "none in jcmd's answer " + lines.stream().limit(2).toList()
                    : threads.toString();
        }
        catch (IOException ex) {
            return "no thread dump: " + ex;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "no thread dump: interrupted";
        }
    }

    boolean isAlive() {
        return jvm.isAlive();
    }

    String name() {
        return node;
    }

    @Override
    public void close() throws InterruptedException {
        resume();
        kill();
    }
}
