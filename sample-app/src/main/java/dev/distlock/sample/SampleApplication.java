package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The distlock sample: a stock-deduction service that several instances can run side by side without
 * overselling.
 * <p>
 * With the defaults it needs nothing installed: the first instance starts an embedded Redis (see
 * {@link dev.distlock.sample.redis.EmbeddedRedisLauncher}) and opens an H2 file database that later instances
 * share.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    /**
     * Starts the sample.
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        exitWithZeroOnSigterm();
        SpringApplication.run(SampleApplication.class, args);
    }

    /**
     * A stop by SIGTERM is the normal end of this sample, not a failure: exit with 0 (after the usual shutdown, the
     * context closed by Spring's shutdown hook) rather than the JVM's 143, which {@code ./mvnw spring-boot:run}
     * reports as BUILD FAILURE (it accepts only 0 and 130, Ctrl-C).
     */
    private static void exitWithZeroOnSigterm() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> System.exit(0));
        }
        catch (IllegalArgumentException | UnsupportedOperationException ex) {
            // No SIGTERM here (Windows) or not allowed: keep the JVM's own handling.
        }
    }
}
