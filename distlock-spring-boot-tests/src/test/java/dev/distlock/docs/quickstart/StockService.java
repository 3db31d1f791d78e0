package dev.distlock.docs.quickstart;

// tag::service[]
import dev.distlock.LockContext;
import dev.distlock.annotation.DistributedLock;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

@Service
public class StockService {

    // Stands for your database: a stock level that every instance reads and writes (here a plain Redis key).
    private final StringRedisTemplate data;

    public StockService(StringRedisTemplate data) {
        this.data = data;
    }

    @DistributedLock(name = "stock", key = "#productId")
    public Deduction deduct(long productId, int quantity) throws InterruptedException {
        String stored = data.opsForValue().get("demo-stock:" + productId);
        int left = (stored == null) ? 100 : Integer.parseInt(stored);
        if (left < quantity) {
            throw new IllegalStateException("Product " + productId + " is sold out");
        }
        Thread.sleep(1000); // slow work between the read and the write: without the lock, two calls would both write 99
        data.opsForValue().set("demo-stock:" + productId, Integer.toString(left - quantity));
        long fencingToken = LockContext.current().orElseThrow().fencingToken();
        return new Deduction(productId, left - quantity, fencingToken);
    }

    public record Deduction(long productId, int remaining, long fencingToken) {
    }
}
// end::service[]
