package dev.distlock.sample.account;

/**
 * No account with that id (answered with 404).
 */
public class AccountNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long accountId;

    /**
     * @param accountId the unknown id
     */
    public AccountNotFoundException(long accountId) {
        super("No account " + accountId);
        this.accountId = accountId;
    }

    /** @return the unknown id */
    public long accountId() {
        return accountId;
    }
}
