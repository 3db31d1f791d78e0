package dev.distlock.sample.stock;

/**
 * A deduction asked for more units than are left.
 */
public class InsufficientStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long productId;

    private final int requested;

    private final int available;

    /**
     * @param productId the product
     * @param requested units asked for
     * @param available units left
     */
    public InsufficientStockException(long productId, int requested, int available) {
        super("Product " + productId + " has " + available + " left, " + requested + " requested");
        this.productId = productId;
        this.requested = requested;
        this.available = available;
    }

    /** @return the product */
    public long productId() {
        return productId;
    }

    /** @return units asked for */
    public int requested() {
        return requested;
    }

    /** @return units left */
    public int available() {
        return available;
    }
}
