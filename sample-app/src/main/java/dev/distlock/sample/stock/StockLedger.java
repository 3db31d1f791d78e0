package dev.distlock.sample.stock;

import org.springframework.stereotype.Component;

/**
 * The read-check-update of a deduction, and nothing else: read the stock, check it, write the new value. It brings
 * neither a transaction nor a lock; its callers do. {@link StockService#deduct} calls it under the distributed lock,
 * the sample page's demo endpoint ({@code dev.distlock.sample.demo.UnlockedStockService}) calls the very same code
 * without one, to show what the lock prevents.
 */
@Component
public class StockLedger {

    private final ProductRepository products;

    /**
     * @param products the product table
     */
    public StockLedger(ProductRepository products) {
        this.products = products;
    }

    /**
     * Takes {@code quantity} units out of stock. Must run inside a transaction.
     *
     * @param productId the product id
     * @param quantity units to take, at least 1
     * @return what was deducted and what is left
     * @throws ProductNotFoundException when the product does not exist
     * @throws InsufficientStockException when fewer units are left
     */
    public Deduction takeOut(long productId, int quantity) {
        Product product = products.find(productId).orElseThrow(() -> new ProductNotFoundException(productId));
        if (product.stock() < quantity) {
            throw new InsufficientStockException(productId, quantity, product.stock());
        }
        int remaining = product.stock() - quantity;
        products.writeStock(productId, remaining);
        return new Deduction(productId, quantity, remaining);
    }
}
