package dev.distlock.sample.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.sample.stock.StockService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

/**
 * Runs a flash sale from the page: resets a product's stock, then sends one buy request per buyer, spread
 * round-robin over every live instance ({@link InstanceRegistry}), and counts the answers.
 * <p>
 * Locked runs send buyers to the real endpoint {@code POST /api/products/{id}/deduct}; unlocked runs to the demo's
 * {@code POST /api/demo/products/{id}/deduct-unlocked}, the same read-check-update without the lock. The load is
 * bounded in count ({@link #MAX_BUYERS}), concurrency ({@link #MAX_CONCURRENCY}) and time ({@link #MAX_RUN}, and
 * {@link #REQUEST_TIMEOUT} per request), and goes to loopback addresses only. One run at a time across all
 * instances: the run itself holds the distributed lock {@code demo-flash-sale}, tried once (a second click
 * anywhere answers 503 while a run is going on).
 */
@Service
public class FlashSaleRunner {

    /** Most buyers per run. */
    public static final int MAX_BUYERS = 2_000;

    /** Most requests in flight. */
    public static final int MAX_CONCURRENCY = 64;

    static final Duration MAX_RUN = Duration.ofSeconds(60);

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(FlashSaleRunner.class);

    private final InstanceRegistry registry;

    private final StockService stock;

    private final LockTimeline timeline;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param registry the instances to send buyers to
     * @param stock to reset the stock and read what remains
     * @param timeline records the reset, which takes the product's lock too
     */
    public FlashSaleRunner(InstanceRegistry registry, StockService stock, LockTimeline timeline) {
        this.registry = registry;
        this.stock = stock;
        this.timeline = timeline;
    }

    /**
     * @param locked whether buyers use the locked endpoint
     * @param productId the product to sell
     * @param stockBefore the stock to start from
     * @param buyers requests to send, one unit each
     * @param concurrency requests in flight at most
     * @return the counts
     * @throws IllegalStateException when no instance is live
     */
    @DistributedLock(name = "demo-flash-sale", waitTime = "0")
    public FlashSaleResult run(boolean locked, long productId, int stockBefore, int buyers, int concurrency) {
        List<Instance> targets = registry.live().stream().filter(FlashSaleRunner::isLoopback).toList();
        if (targets.isEmpty()) {
            throw new IllegalStateException("No live sample instance has registered a loopback base URL yet");
        }
        String lockName = StockService.lockName(productId);
        long startedAt = Micros.now();
        timeline.track(lockName, "restock", () -> stock.setStock(productId, stockBefore));

        Map<String, Integer> answers = new ConcurrentHashMap<>();
        String path = locked ? "/api/products/" + productId + "/deduct?quantity=1"
                : "/api/demo/products/" + productId + "/deduct-unlocked?quantity=1";
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            for (int i = 0; i < buyers; i++) {
                URI uri = URI.create(targets.get(i % targets.size()).baseUrl() + path);
                pool.execute(() -> answers.merge(buy(uri), 1, Integer::sum));
            }
            pool.shutdown();
            if (!pool.awaitTermination(MAX_RUN.toSeconds(), TimeUnit.SECONDS)) {
                log.warn("Flash sale stopped after {}: buyers still waiting are not counted", MAX_RUN);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            pool.shutdownNow();
        }
        long finishedAt = Micros.now();

        int remaining = stock.product(productId).stock();
        int sold = answers.getOrDefault("200", 0);
        Map<String, Integer> errors = new TreeMap<>(answers);
        errors.remove("200");
        int soldOut = errors.getOrDefault("409", 0);
        errors.remove("409");
        FlashSaleResult result = new FlashSaleResult(locked, lockName, productId, stockBefore, buyers, concurrency,
                targets.stream().map(Instance::id).toList(), targets.stream().allMatch(Instance::lockEnabled),
                startedAt, finishedAt, sold, soldOut, errors, remaining, sold - (stockBefore - remaining));
        log.info("Flash sale {} the lock over {} instances: sold {}, sold out {}, errors {}, remaining {}, "
                + "oversold {}", locked ? "with" : "WITHOUT", targets.size(), sold, soldOut, errors, remaining,
                result.oversold());
        return result;
    }

    private String buy(URI uri) {
        try {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            return String.valueOf(response.statusCode());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "io-error";
        }
        catch (java.io.IOException ex) {
            return "io-error";
        }
    }

    private static boolean isLoopback(Instance instance) {
        String host = URI.create(instance.baseUrl()).getHost();
        return "127.0.0.1".equals(host) || "localhost".equals(host) || "[::1]".equals(host);
    }
}
