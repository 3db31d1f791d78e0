package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sweeps that keep failing are reported: a user without {@code DELETE} on the lock table can lock (acquire and
 * release are inserts and updates) while the table grows without end, and nothing but the sweep would ever show it.
 * The delete here fails as the store's bounded call reports a refused statement.
 */
@ExtendWith(OutputCaptureExtension.class)
class RowSweeperTests {

    @Test
    void aSweepThatKeepsFailingIsReportedOnceAWarningIsDueAndItsRecoveryToo(CapturedOutput output) {
        AtomicBoolean refused = new AtomicBoolean(true);
        RowSweeper sweeper = new RowSweeper(batch -> {
            if (refused.get()) {
                throw new LockUnavailableException("Could not delete expired lock rows: DELETE command denied to "
                        + "user 'locks'@'127.0.0.1' for table 'distlock_lock'");
            }
            return 0;
        }, Duration.ofMinutes(1));
        for (int i = 1; i < RowSweeper.FAILURES_WORTH_A_WARNING; i++) {
            assertThat(sweeper.sweep()).isZero();
        }
        assertThat(output).as("a single failure is the lock path's news").doesNotContain("WARN");
        sweeper.sweep();
        assertThat(output).contains("WARN").contains(RowSweeper.FAILURES_WORTH_A_WARNING + " sweeps in a row")
                .contains("DELETE command denied");
        sweeper.sweep();
        assertThat(output.toString().split("sweeps in a row", -1)).as("once per streak").hasSize(2);

        refused.set(false);
        sweeper.sweep();
        assertThat(output).contains("Deleting expired lock rows works again");
    }
}
