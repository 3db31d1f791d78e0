package dev.distlock.sample.stock;

import java.util.List;

import dev.distlock.LockContext;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.sample.demo.LockTimeline;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Stock changes, one product at a time across every instance.
 * <p>
 * Each change is a plain read-check-update in a transaction: read the stock, check it, write the new value. Two
 * instances doing that at once for the same product would both read the same stock and both sell it; the
 * distributed lock {@code stock:<productId>} makes them take turns. The lock advice runs outside the transaction
 * advice, so the transaction has committed before the next holder reads.
 * <p>
 * The lock's fencing token guards against a holder that lost its lease (a long GC pause, a network partition)
 * and carries on as if it still held the lock: every change first writes its token to the product row, refused
 * when a newer holder already wrote a higher one. With {@code distlock.enabled=false} there is no token, and no
 * lock either: that is the unprotected version, shown for comparison.
 * <p>
 * The bodies of the locked methods also tell the sample page's {@link LockTimeline} when they start and end, so the
 * page can draw every hold; that costs a clock read and a queue offer, no I/O.
 */
@Service
public class StockService {

    private final ProductRepository products;

    private final StockLedger ledger;

    private final LockTimeline timeline;

    /**
     * @param products the product table
     * @param ledger the read-check-update of a deduction
     * @param timeline records each hold for the sample page
     */
    public StockService(ProductRepository products, StockLedger ledger, LockTimeline timeline) {
        this.products = products;
        this.ledger = ledger;
        this.timeline = timeline;
    }

    /**
     * @param productId the product id
     * @return the name of the product's lock, as {@code @DistributedLock(name = "stock", key = "#productId")}
     *         evaluates it
     */
    public static String lockName(long productId) {
        return "stock:" + productId;
    }

    /** @return every product, by id */
    @Transactional(readOnly = true)
    public List<Product> products() {
        return products.findAll();
    }

    /**
     * @param productId the product id
     * @return the product
     * @throws ProductNotFoundException when it does not exist
     */
    @Transactional(readOnly = true)
    public Product product(long productId) {
        return products.find(productId).orElseThrow(() -> new ProductNotFoundException(productId));
    }

    /**
     * Takes {@code quantity} units out of stock.
     *
     * @param productId the product id
     * @param quantity units to take, at least 1
     * @return what was deducted and what is left
     * @throws ProductNotFoundException when the product does not exist
     * @throws InsufficientStockException when fewer units are left
     * @throws StaleTokenException when this caller's lock was lost to a newer holder
     * @throws dev.distlock.LockTimeoutException when the lock was not acquired within the wait time
     * @throws dev.distlock.LockUnavailableException when Redis could not be reached
     */
    @DistributedLock(name = "stock", key = "#productId")
    @Transactional
    public Deduction deduct(long productId, int quantity) {
        if (quantity < 1) {
            throw new InvalidRequestException("quantity", "quantity must be at least 1, was " + quantity);
        }
        // The sample page draws the body of this method as the hold: the lock is held from here ...
        timeline.entered();
        try {
            fence(productId);
            return ledger.takeOut(productId, quantity);
        }
        finally {
            // ... to here (the transaction commits and the lock is released right after).
            timeline.left();
        }
    }

    /**
     * Sets the stock of a product (e.g. to restock it before a sale). Takes the same lock as {@link #deduct}, so a
     * reset never lands in the middle of a deduction.
     *
     * @param productId the product id
     * @param stock the new stock, not negative
     * @return the updated product
     * @throws ProductNotFoundException when the product does not exist
     */
    @DistributedLock(name = "stock", key = "#productId")
    @Transactional
    public Product setStock(long productId, int stock) {
        if (stock < 0) {
            throw new InvalidRequestException("stock", "stock must not be negative, was " + stock);
        }
        timeline.entered();
        try {
            fence(productId);
            if (!products.writeStock(productId, stock)) {
                throw new ProductNotFoundException(productId);
            }
            return product(productId);
        }
        finally {
            timeline.left();
        }
    }

    /**
     * Writes this holder's fencing token to the product row through distlock's {@code FencedJdbc} (which throws
     * {@link StaleTokenException} when a newer holder got there first). Does nothing when no lock is held (distlock
     * disabled).
     */
    private void fence(long productId) {
        if (LockContext.current().isPresent() && !products.claim(productId)) {
            throw new ProductNotFoundException(productId);
        }
    }
}
