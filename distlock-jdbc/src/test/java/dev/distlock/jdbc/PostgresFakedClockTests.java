package dev.distlock.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.distlock.test.support.campaign.FakedClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * PostgreSQL restarts under a faked clock, as the fault campaign restarts it, whatever libfaketime files dead
 * processes left in {@code /dev/shm}. libfaketime makes a semaphore per process ({@code sem.faketime_sem_<pid>}),
 * and a process killed before its exit leaves it behind. A CI run failed on one: pg_ctl got the PID of such a file,
 * and its start ended with "sem_open failed and recreation attempts failed". Only a start as root hits it, where the
 * commands run through {@code runuser} (see {@code PostgresTestServer#run}).
 */
class PostgresFakedClockTests {

    private static final Path SHM = Path.of("/dev/shm");

    @Test
    void restartsUnderAFakedClockThoughDeadProcessesLeftLibfaketimesSemaphores() throws Exception {
        assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")),
                "SKIPPED: not run as root, so PostgreSQL's commands do not go through runuser");
        Optional<FakedClock> clock = FakedClock.create("postgres");
        assumeTrue(clock.isPresent(), "SKIPPED: no libfaketime (see the WARN above)");
        Optional<PostgresTestServer> started = PostgresTestServer.startNew(false);
        assumeTrue(started.isPresent(), "SKIPPED: no PostgreSQL binaries (see the WARN above)");
        try (PostgresTestServer server = started.get(); FakedClock faked = clock.get()) {
            server.environment(faked.environment());
            // A start fails when runuser's PID has no file and pg_ctl's, the next one, has: leftovers at every other
            // PID ahead, odd and even by turns, make about half of the restarts meet that.
            for (int restart = 0; restart < 8; restart++) {
                List<Path> planted = plantLeftovers(restart % 2);
                try {
                    server.stop("fast");
                    server.start();
                }
                finally {
                    for (Path file : planted) {
                        Files.deleteIfExists(file);
                    }
                }
            }
            try (Connection connection = server.admin()) {
                assertThat(connection.isValid(2)).as("up under the faked clock").isTrue();
            }
        }
    }

    /** Leaves a dead process's semaphore file, as root's, at each free PID of the given parity ahead. */
    private static List<Path> plantLeftovers(int parity) throws IOException {
        // readAllLines: a sysctl file gives its size as 0, and readString reads only its first byte.
        long last = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/ns_last_pid")).get(0).trim());
        List<Path> planted = new ArrayList<>();
        for (long pid = last + 1; pid <= last + 400; pid++) {
            Path file = SHM.resolve("sem.faketime_sem_" + pid);
            if (pid % 2 == parity && ProcessHandle.of(pid).isEmpty() && !Files.exists(file)) {
                planted.add(Files.createFile(file));
            }
        }
        return planted;
    }
}
