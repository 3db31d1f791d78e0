package dev.distlock.docs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

@Service
public class StockService {

    // Stands for your database: a read, a check and a write that must not interleave across instances.
    private final Map<Long, Integer> stock = new ConcurrentHashMap<>(Map.of(42L, 100));

    @DistributedLock(name = "stock", key = "#productId")
    public int deduct(long productId, int quantity) {
        int left = stock.getOrDefault(productId, 0);
        if (left < quantity) {
            throw new IllegalStateException("Product " + productId + " is sold out");
        }
        stock.put(productId, left - quantity);
        return left - quantity;
    }
}
