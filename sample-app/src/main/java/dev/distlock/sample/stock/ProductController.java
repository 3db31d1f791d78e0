package dev.distlock.sample.stock;

import java.util.List;

import dev.distlock.sample.demo.LockTimeline;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The stock API. Errors are answered as RFC 9457 problem details by {@link StockExceptionHandler}.
 * <p>
 * The calls that take a product's lock go through {@link LockTimeline#track}, which notes when they asked for the
 * lock, for the sample page's timeline.
 */
@RestController
@RequestMapping("/api/products")
public class ProductController {

    private final StockService stock;

    private final LockTimeline timeline;

    /**
     * @param stock the stock service
     * @param timeline records each call for the sample page
     */
    public ProductController(StockService stock, LockTimeline timeline) {
        this.stock = stock;
        this.timeline = timeline;
    }

    /** @return every product */
    @GetMapping
    public List<Product> products() {
        return stock.products();
    }

    /**
     * @param id the product id
     * @return the product; 404 when unknown
     */
    @GetMapping("/{id}")
    public Product product(@PathVariable long id) {
        return stock.product(id);
    }

    /**
     * Buys {@code quantity} units.
     *
     * @param id the product id
     * @param quantity units to buy, at least 1
     * @return the deduction; 409 when not enough stock, 400 for a bad quantity, 404 for an unknown product, 503
     *         when the lock was not acquired in time or Redis is unavailable
     */
    @PostMapping("/{id}/deduct")
    public Deduction deduct(@PathVariable long id, @RequestParam int quantity) {
        if (quantity < 1) {
            // Checked before the service so that bad input never takes the lock.
            throw new InvalidRequestException("quantity", "quantity must be at least 1, was " + quantity);
        }
        return timeline.track(StockService.lockName(id), "sold", () -> stock.deduct(id, quantity));
    }

    /**
     * Sets the stock, e.g. to restock before a flash sale.
     *
     * @param id the product id
     * @param stock the new stock, not negative
     * @return the updated product; 400 for a negative stock, 404 for an unknown product
     */
    @PutMapping("/{id}/stock")
    public Product setStock(@PathVariable long id, @RequestParam int stock) {
        if (stock < 0) {
            throw new InvalidRequestException("stock", "stock must not be negative, was " + stock);
        }
        return timeline.track(StockService.lockName(id), "restock", () -> this.stock.setStock(id, stock));
    }
}
