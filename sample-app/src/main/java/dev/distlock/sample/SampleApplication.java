package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The distlock sample: a stock-deduction service that several instances can run side by side without
 * overselling.
 */
@SpringBootApplication
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
