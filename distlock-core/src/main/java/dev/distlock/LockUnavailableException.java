package dev.distlock;

/**
 * The lock store could not be reached, did not answer within the command timeout, or answered an error. The
 * protected work did not run.
 */
public class LockUnavailableException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and what failed
     */
    public LockUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message which lock and what failed
     * @param cause the underlying failure
     */
    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
