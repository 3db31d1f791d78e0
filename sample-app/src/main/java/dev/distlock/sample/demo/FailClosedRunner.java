package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.sample.stock.StockService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/**
 * Runs the page's fail-closed demo: resets the product's stock to {@link #STOCK}, freezes the embedded Redis this
 * instance started (SIGSTOP: the server keeps its connections but answers nothing, as a hung or partitioned store
 * does), sends buyers to the real deduct endpoint of every live instance meanwhile, thaws Redis once they have all
 * been answered, then sends a few more. While Redis is frozen every buyer gets 503 (the lock could not be acquired:
 * the store did not answer within {@code distlock.command-timeout}) and the stock does not move: the locked method
 * never runs unprotected. Once Redis is back the next buyers are served, without a restart.
 * <p>
 * Only the instance that started the embedded Redis can freeze it, and one run at a time on it: otherwise
 * {@link FailClosedRefusedException} (409). Buyers are bounded by {@link #MAX_BUYERS} and go to loopback addresses
 * only ({@link DemoLoad}).
 */
@Service
public class FailClosedRunner {

    /** Most buyers sent while Redis is frozen, all at once. */
    public static final int MAX_BUYERS = 64;

    /** The product's stock at the start of a run. */
    static final int STOCK = 100;

    /** Buyers sent once Redis is back. */
    static final int BUYERS_AFTER_THAW = 3;

    private static final Logger log = LoggerFactory.getLogger(FailClosedRunner.class);

    private final ObjectProvider<RedisServerProcess> embeddedRedis;

    private final DemoLoad load;

    private final StockService stock;

    /** One run at a time: a local lock, as only this instance can run it (a distributed one would be in Redis). */
    private final ReentrantLock oneRun = new ReentrantLock();

    /**
     * @param embeddedRedis the Redis this instance started, if it started one
     *        ({@link dev.distlock.sample.redis.EmbeddedRedisLauncher})
     * @param load sends the buyers to the instances
     * @param stock resets the stock and reads it after
     */
    public FailClosedRunner(ObjectProvider<RedisServerProcess> embeddedRedis, DemoLoad load, StockService stock) {
        this.embeddedRedis = embeddedRedis;
        this.load = load;
        this.stock = stock;
    }

    /**
     * @param productId the product to buy
     * @param buyers buyers to send while Redis is frozen, one unit each, all at once
     * @return what the buyers were answered and the stock before and after
     * @throws FailClosedRefusedException when this instance did not start the embedded Redis, or a run is going on
     * @throws IllegalStateException when no instance is live
     */
    public FailClosedResult run(long productId, int buyers) {
        RedisServerProcess redis = embeddedRedis.getIfAvailable();
        if (redis == null) {
            throw new FailClosedRefusedException("This instance did not start the embedded Redis, so it cannot"
                    + " freeze it. Open the page of the instance that logged \"Started an embedded Redis\" (the first"
                    + " one started), with distlock.store=redis and no other Redis configured.");
        }
        if (!oneRun.tryLock()) {
            throw new FailClosedRefusedException(
                    "A fail-closed run is going on on this instance; try again when it ends.");
        }
        try {
            List<Instance> targets = load.targets();
            String path = "/api/products/" + productId + "/deduct?quantity=1";
            int stockBefore = stock.setStock(productId, STOCK).stock();
            long frozenAt = System.nanoTime();
            Map<String, Integer> whileFrozen;
            log.warn("Fail-closed demo: freezing the embedded Redis (pid {}) while {} buyers are sent", redis.pid(),
                    buyers);
            redis.pause();
            try {
                whileFrozen = load.post(targets, buyers, buyers, i -> path);
            }
            finally {
                redis.resume();
            }
            long frozenMillis = (System.nanoTime() - frozenAt) / 1_000_000;
            log.warn("Fail-closed demo: Redis thawed after {} ms; answers while frozen: {}", frozenMillis, whileFrozen);
            int stockAfterFreeze = stock.product(productId).stock();
            Map<String, Integer> afterThaw = load.post(targets, BUYERS_AFTER_THAW, 1, i -> path);
            return new FailClosedResult(targets.stream().map(Instance::id).toList(), productId, frozenMillis,
                    whileFrozen, afterThaw, stockBefore, stockAfterFreeze, stock.product(productId).stock());
        }
        finally {
            oneRun.unlock();
        }
    }
}
