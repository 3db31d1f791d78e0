package dev.distlock.sample.stock;

/**
 * The product row was already written under a newer lock holder's fencing token: this caller's lease was lost
 * (e.g. it stalled longer than the lease) and its write is refused, so it cannot overwrite the newer holder's work.
 */
public class StaleFencingTokenException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long productId;

    private final long fencingToken;

    /**
     * @param productId the product
     * @param fencingToken the refused token
     */
    public StaleFencingTokenException(long productId, long fencingToken) {
        super("Product " + productId + " was written by a newer lock holder than fencing token " + fencingToken
                + "; the lock was lost and the write refused");
        this.productId = productId;
        this.fencingToken = fencingToken;
    }

    /** @return the product */
    public long productId() {
        return productId;
    }

    /** @return the refused token */
    public long fencingToken() {
        return fencingToken;
    }
}
