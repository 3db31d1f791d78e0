package dev.distlock;

/**
 * The lock was not acquired within the wait time.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and how long was waited
     */
    public LockTimeoutException(String message) {
        super(message);
    }
}
