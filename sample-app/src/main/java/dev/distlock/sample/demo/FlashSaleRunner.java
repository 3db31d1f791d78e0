package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.sample.stock.StockService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

/**
 * Runs a flash sale from the page: resets a product's stock, then sends one buy request per buyer, spread
 * round-robin over every live instance ({@link DemoLoad}), and counts the answers.
 * <p>
 * Locked runs send buyers to the real endpoint {@code POST /api/products/{id}/deduct}; unlocked runs to the demo's
 * {@code POST /api/demo/products/{id}/deduct-unlocked}, the same read-check-update without the lock. The load is
 * bounded in count ({@link #MAX_BUYERS}), concurrency ({@link #MAX_CONCURRENCY}) and time (see {@link DemoLoad}),
 * and goes to loopback addresses only. One run at a time across all instances: the run itself holds the
 * distributed lock {@code demo-flash-sale}, tried once (a second click anywhere answers 503 while a run is going on).
 */
@Service
public class FlashSaleRunner {

    /** Most buyers per run. */
    public static final int MAX_BUYERS = 2_000;

    /** Most requests in flight. */
    public static final int MAX_CONCURRENCY = 64;

    private static final Logger log = LoggerFactory.getLogger(FlashSaleRunner.class);

    private final DemoLoad load;

    private final StockService stock;

    private final LockTimeline timeline;

    /**
     * @param load sends the buyers to the instances
     * @param stock to reset the stock and read what remains
     * @param timeline records the reset, which takes the product's lock too
     */
    public FlashSaleRunner(DemoLoad load, StockService stock, LockTimeline timeline) {
        this.load = load;
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
        List<Instance> targets = load.targets();
        String lockName = StockService.lockName(productId);
        long startedAt = Micros.now();
        timeline.track(lockName, "restock", () -> stock.setStock(productId, stockBefore));

        String path = locked ? "/api/products/" + productId + "/deduct?quantity=1"
                : "/api/demo/products/" + productId + "/deduct-unlocked?quantity=1";
        Map<String, Integer> errors = load.post(targets, buyers, concurrency, i -> path);
        long finishedAt = Micros.now();

        int remaining = stock.product(productId).stock();
        int sold = Objects.requireNonNullElse(errors.remove("200"), 0);
        int soldOut = Objects.requireNonNullElse(errors.remove("409"), 0);
        FlashSaleResult result = new FlashSaleResult(locked, lockName, productId, stockBefore, buyers, concurrency,
                targets.stream().map(Instance::id).toList(), targets.stream().allMatch(Instance::lockEnabled),
                startedAt, finishedAt, sold, soldOut, errors, remaining, sold - (stockBefore - remaining));
        log.info("Flash sale {} the lock over {} instances: sold {}, sold out {}, errors {}, remaining {}, "
                + "oversold {}", locked ? "with" : "WITHOUT", targets.size(), sold, soldOut, errors, remaining,
                result.oversold());
        return result;
    }
}
