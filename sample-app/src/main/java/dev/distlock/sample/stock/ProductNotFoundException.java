package dev.distlock.sample.stock;

/**
 * No product has the requested id.
 */
public class ProductNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long productId;

    /**
     * @param productId the unknown id
     */
    public ProductNotFoundException(long productId) {
        super("Product " + productId + " does not exist");
        this.productId = productId;
    }

    /** @return the unknown id */
    public long productId() {
        return productId;
    }
}
