package dev.distlock.sample.report;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.OnTimeout;
import dev.distlock.sample.stock.Product;
import dev.distlock.sample.stock.ProductRepository;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that must run once per schedule, not once per instance.
 * <p>
 * Every instance schedules it at the same time ({@code sample.daily-report.cron}); the lock with
 * {@code waitTime = "0"} and {@code onTimeout = SKIP} lets the first instance to arrive run it, and the others skip
 * it without waiting or failing. The report itself is a log line: the stock of every product and which instance
 * wrote it.
 */
@Component
public class DailyReportJob {

    private static final Logger log = LoggerFactory.getLogger(DailyReportJob.class);

    private final ProductRepository products;

    private final Environment environment;

    private final AtomicInteger reportsWritten = new AtomicInteger();

    /**
     * @param products the product table
     * @param environment to name this instance in the report
     */
    public DailyReportJob(ProductRepository products, Environment environment) {
        this.products = products;
        this.environment = environment;
    }

    /** Writes the daily stock report, on one instance only. */
    @Scheduled(cron = "${sample.daily-report.cron}")
    @DistributedLock(name = "daily-report", waitTime = "0", onTimeout = OnTimeout.SKIP)
    public void writeReport() {
        List<Product> all = products.findAll();
        String stock = all.stream().map(p -> p.id() + "=" + p.stock()).collect(Collectors.joining(", "));
        log.info("Daily stock report written by instance {}: {}", instanceName(), stock);
        reportsWritten.incrementAndGet();
    }

    /** @return how many reports this instance wrote since it started */
    public int reportsWritten() {
        return reportsWritten.get();
    }

    private String instanceName() {
        // "pid@host", plus the HTTP port once the server has started.
        String name = ManagementFactory.getRuntimeMXBean().getName();
        String port = environment.getProperty("local.server.port");
        return port == null ? name : name + " (port " + port + ")";
    }
}
