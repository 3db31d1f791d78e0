package dev.distlock.zookeeper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import dev.distlock.test.LockHistory;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release, no goodbye to ZooKeeper) blocks the lock for at
 * most its session timeout: the server expires the session and deletes its node.
 */
class ProcessCrashTests {

    private final LockHistory history = new LockHistory();

    @Test
    void lockOfAKilledHolderIsFreeAgainWithinTheSessionTimeout() throws Exception {
        long sessionMillis = 2000;
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        try (TestingServer server = ZooKeeperServers.server(); ZooKeeperNodes nodes = new ZooKeeperNodes()) {
            Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    ZooKeeperHolderProcess.class.getName(), server.getConnectString(), "/crash", "crash",
                    String.valueOf(sessionMillis)).redirectErrorStream(true).start();
            try {
                String locked = CompletableFuture.supplyAsync(() -> firstLineStartingWith(holder, "LOCKED "))
                        .get(60, TimeUnit.SECONDS);
                assertThat(locked).startsWith("LOCKED ");
                long lockedAt = System.nanoTime();
                long holderToken = Long.parseLong(locked.substring("LOCKED ".length()).trim());
                StoreLockService node = nodes.node(ZooKeeperServers.config(server.getConnectString(), "/crash"));
                assertThat(node.tryLock("crash", LockOptions.defaults().withWaitTime(Duration.ofMillis(500))))
                        .as("the live holder's session keeps the lock").isEmpty();

                holder.destroyForcibly(); // SIGKILL
                holder.waitFor(10, TimeUnit.SECONDS);
                long killed = System.nanoTime();
                history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
                try (LockHandle handle = node.lock("crash", LockOptions.defaults()
                        .withWaitTime(Duration.ofMillis(sessionMillis * 4)))) {
                    // The server expires the session on its tick (300 ms) after the last heartbeat, which came
                    // before the kill; the rest is slack for a busy machine.
                    history.hold("survivor", handle, () -> assertThat(Duration.ofNanos(System.nanoTime() - killed))
                            .isLessThanOrEqualTo(Duration.ofMillis(sessionMillis + 2000)));
                }
                history.assertConsistent();
            }
            finally {
                holder.destroyForcibly();
            }
        }
    }

    private static String firstLineStartingWith(Process process, String prefix) {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        try {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
        catch (IOException ex) {
            // the process ended
        }
        return "EOF";
    }
}
