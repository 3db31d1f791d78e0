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
        SpringApplication.run(SampleApplication.class, args);
    }
}
