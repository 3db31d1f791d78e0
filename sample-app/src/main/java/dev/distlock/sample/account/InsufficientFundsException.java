package dev.distlock.sample.account;

/**
 * The debited account holds less than the amount (answered with 409; nothing moved).
 */
public class InsufficientFundsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long accountId;

    private final long requested;

    private final long available;

    /**
     * @param accountId the debited account
     * @param requested the amount asked for
     * @param available its balance
     */
    public InsufficientFundsException(long accountId, long requested, long available) {
        super("Account " + accountId + " holds " + available + ", less than " + requested);
        this.accountId = accountId;
        this.requested = requested;
        this.available = available;
    }

    /** @return the debited account */
    public long accountId() {
        return accountId;
    }

    /** @return the amount asked for */
    public long requested() {
        return requested;
    }

    /** @return its balance */
    public long available() {
        return available;
    }
}
