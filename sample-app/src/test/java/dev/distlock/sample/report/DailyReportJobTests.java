package dev.distlock.sample.report;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.sample.SampleAppTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daily report runs on the instance that gets the {@code daily-report} lock and is skipped, without waiting
 * or failing, on every instance that finds it taken.
 */
class DailyReportJobTests extends SampleAppTestSupport {

    @Autowired
    private DailyReportJob job;

    @Autowired
    private LockService locks;

    private final ExecutorService otherInstance = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopOtherInstance() throws InterruptedException {
        otherInstance.shutdownNow();
        otherInstance.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void runsWhenNoOtherInstanceIsRunningIt() {
        int before = job.reportsWritten();
        job.writeReport();
        assertThat(job.reportsWritten()).isEqualTo(before + 1);
    }

    @Test
    void isSkippedAtOnceWhileAnotherInstanceRunsIt() throws Exception {
        LockHandle otherRun = otherInstance.submit(() -> locks.lock("daily-report")).get(5, TimeUnit.SECONDS);
        int before = job.reportsWritten();
        long start = System.nanoTime();
        try {
            job.writeReport();
        }
        finally {
            otherRun.unlock();
        }
        assertThat(job.reportsWritten()).as("skipped, not run").isEqualTo(before);
        // waitTime = "0": one try, not the distlock.wait-time of 300ms.
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("did not wait").isLessThan(250);
        job.writeReport();
        assertThat(job.reportsWritten()).isEqualTo(before + 1);
    }
}
