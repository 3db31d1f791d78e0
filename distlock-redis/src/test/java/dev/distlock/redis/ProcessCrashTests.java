package dev.distlock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release) blocks the lock for at most its lease.
 */
class ProcessCrashTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockHistory history = new LockHistory();

    @Test
    void lockOfAKilledHolderIsFreeAgainWithinTheLease() throws Exception {
        RedisServerProcess server = redisServers.start();
        long leaseMillis = 1500;
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                HolderProcess.class.getName(), String.valueOf(server.port()), "crash", String.valueOf(leaseMillis))
                .redirectErrorStream(true).start();
        try (LockNodes nodes = new LockNodes()) {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String locked = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.startsWith("LOCKED ")) {
                            return line;
                        }
                    }
                    return "EOF";
                }
                catch (java.io.IOException ex) {
                    return "EOF";
                }
            }).get(60, TimeUnit.SECONDS);
            assertThat(locked).startsWith("LOCKED ");
            long lockedAt = System.nanoTime();
            long holderToken = Long.parseLong(locked.substring("LOCKED ".length()));

            StoreLockService node = nodes.node(server, "proc");
            assertThat(node.tryLock("crash", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .as("the live holder's watchdog keeps the lock").isEmpty();

            holder.destroyForcibly(); // SIGKILL
            holder.waitFor(10, TimeUnit.SECONDS);
            long killed = System.nanoTime();
            // The killed holder held the lock until it died at the latest (its work may have gone on until then).
            history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
            try (LockHandle handle = node.lock("crash",
                    LockOptions.defaults().withWaitTime(Duration.ofMillis(leaseMillis * 3)))) {
                history.hold("survivor", handle, () -> assertThat(Duration.ofNanos(System.nanoTime() - killed))
                        .isLessThanOrEqualTo(Duration.ofMillis(leaseMillis + 1000)));
            }
            history.assertConsistent();
        }
        finally {
            holder.destroyForcibly();
        }
    }
}
