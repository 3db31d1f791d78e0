package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The harness's own view of the server: {@code INFO} counters, {@code MONITOR} request counts and key checks. It
 * uses a connection of its own, whose few commands are left out of every count.
 */
final class RedisProbe implements AutoCloseable {

    private final RedisTarget target;

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    RedisProbe(RedisTarget target) {
        this.target = target;
        this.client = RedisClient.create(target.uri());
        this.connection = client.connect();
    }

    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    String info(String section, String field) {
        for (String line : redis().info(section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "?";
    }

    /** @return calls per command name, from {@code INFO commandstats} */
    Map<String, Long> commandStats() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : redis().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String value = line.substring(line.indexOf("calls=") + 6);
                calls.put(name, Long.parseLong(value.substring(0, value.indexOf(','))));
            }
        }
        return calls;
    }

    /**
     * The server's CPU so far: {@code INFO commandstats} time per command (the probe's own INFO left out) and the
     * process CPU of {@code INFO cpu}.
     *
     * @param usecByCommand microseconds spent in each command; commands called from a script count inside the
     *        script's EVAL/EVALSHA and again under their own name
     * @param cpuSeconds {@code used_cpu_sys + used_cpu_user}
     */
    record ServerCpu(Map<String, Long> usecByCommand, double cpuSeconds) {

        /** @return what was spent between {@code before} and this snapshot */
        ServerCpu minus(ServerCpu before) {
            Map<String, Long> delta = new TreeMap<>();
            usecByCommand.forEach((name, usec) -> {
                long d = usec - before.usecByCommand.getOrDefault(name, 0L);
                if (d > 0) {
                    delta.put(name, d);
                }
            });
            return new ServerCpu(delta, cpuSeconds - before.cpuSeconds);
        }

        long usec() {
            return usecByCommand.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    ServerCpu serverCpu() {
        Map<String, Long> usec = new TreeMap<>();
        for (String line : redis().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String value = line.substring(line.indexOf("usec=") + 5);
                usec.put(name, Long.parseLong(value.substring(0, value.indexOf(','))));
            }
        }
        double cpu = Double.parseDouble(info("cpu", "used_cpu_sys")) + Double.parseDouble(info("cpu", "used_cpu_user"));
        return new ServerCpu(usec, cpu);
    }

    /** @return {@code DBSIZE} */
    long dbSize() {
        return redis().dbsize();
    }

    /** @return {@code used_memory} of {@code INFO memory}, in bytes */
    long usedMemory() {
        return Long.parseLong(info("memory", "used_memory"));
    }

    long totalCommandsProcessed() {
        return Long.parseLong(info("stats", "total_commands_processed"));
    }

    long countExisting(List<String> keys) {
        long alive = 0;
        for (String key : keys) {
            Long ttl = redis().pttl(key);
            if (ttl != null && (ttl > 0 || ttl == -1)) {
                alive++;
            }
        }
        return alive;
    }

    /**
     * Counts what clients send while {@code work} runs: requests (commands a client sent) with {@code MONITOR},
     * commands executed (also those called from scripts) with {@code INFO commandstats}.
     */
    Traffic measure(Runnable work) throws Exception {
        Monitor monitor = new Monitor();
        try {
            String startMarker = "distlock-bench-start-" + UUID.randomUUID();
            monitor.expect(startMarker);
            redis().echo(startMarker);
            monitor.awaitMarker();
            Map<String, Long> before = commandStats();
            long totalBefore = totalCommandsProcessed();
            long nanos = System.nanoTime();
            work.run();
            nanos = System.nanoTime() - nanos;
            long totalAfter = totalCommandsProcessed();
            Map<String, Long> after = commandStats();
            String endMarker = "distlock-bench-end-" + UUID.randomUUID();
            monitor.expect(endMarker);
            redis().echo(endMarker);
            monitor.awaitMarker();
            Map<String, Long> delta = new TreeMap<>();
            after.forEach((name, calls) -> {
                long d = calls - before.getOrDefault(name, 0L);
                if (d > 0 && !name.equals("info") && !name.equals("echo") && !name.equals("monitor")) {
                    delta.put(name, d);
                }
            });
            // total_commands_processed counts the probe's own INFO between the two reads: one call.
            return new Traffic(monitor.requestsBetweenMarkers(), delta, totalAfter - totalBefore - 1,
                    Map.copyOf(monitor.requestsByCommand), nanos);
        }
        finally {
            monitor.close();
        }
    }

    /**
     * What was sent to Redis while some work ran.
     *
     * @param requests commands sent by clients (MONITOR lines not from scripts)
     * @param commandCalls commands executed per name (commandstats delta, includes commands run by scripts)
     * @param totalCommandsProcessed delta of {@code total_commands_processed}
     * @param requestsByCommand client requests per command name
     * @param nanos how long the work ran
     */
    record Traffic(long requests, Map<String, Long> commandCalls, long totalCommandsProcessed,
            Map<String, Long> requestsByCommand, long nanos) {

        long commands() {
            return commandCalls.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** A raw {@code MONITOR} connection that counts client requests between two ECHO markers. */
    private final class Monitor implements AutoCloseable {

        private final Socket socket;

        private final Thread reader;

        private final AtomicLong requests = new AtomicLong();

        private final Map<String, Long> requestsByCommand = new HashMap<>();

        private volatile String awaited;

        private volatile CountDownLatch seen;

        private volatile boolean counting;

        private volatile long atEnd = -1;

        Monitor() throws IOException {
            socket = new Socket(target.host(), target.port());
            OutputStream out = socket.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8), 1 << 16);
            String ok = in.readLine();
            if (ok == null || !ok.startsWith("+OK")) {
                throw new IOException("MONITOR refused: " + ok);
            }
            reader = new Thread(() -> read(in), "redis-monitor");
            reader.setDaemon(true);
            reader.start();
        }

        private void read(BufferedReader in) {
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    String marker = awaited;
                    if (marker != null && line.contains(marker)) {
                        if (counting) {
                            atEnd = requests.get();
                        }
                        counting = !counting;
                        awaited = null;
                        seen.countDown();
                        continue;
                    }
                    if (!counting) {
                        continue;
                    }
                    // +1690000000.123456 [0 127.0.0.1:53210] "evalsha" "..." ; script calls show [0 lua]
                    int close = line.indexOf(']');
                    if (close < 0 || line.lastIndexOf(" lua]", close) >= 0) {
                        continue;
                    }
                    requests.incrementAndGet();
                    int quote = line.indexOf('"', close);
                    int end = quote < 0 ? -1 : line.indexOf('"', quote + 1);
                    if (end > quote) {
                        String command = line.substring(quote + 1, end).toLowerCase();
                        synchronized (requestsByCommand) {
                            requestsByCommand.merge(command, 1L, Long::sum);
                        }
                    }
                }
            }
            catch (IOException ex) {
                // closed
            }
        }

        void expect(String marker) {
            seen = new CountDownLatch(1);
            awaited = marker;
        }

        void awaitMarker() throws InterruptedException {
            if (!seen.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not show " + awaited);
            }
        }

        long requestsBetweenMarkers() {
            // The probe's INFO calls and ECHO between the markers are its own.
            long probe = requestsByCommand.getOrDefault("info", 0L) + requestsByCommand.getOrDefault("echo", 0L);
            requestsByCommand.remove("info");
            requestsByCommand.remove("echo");
            return atEnd - probe;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
