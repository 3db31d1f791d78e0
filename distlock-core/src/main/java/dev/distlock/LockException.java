package dev.distlock;

/**
 * Base class of every exception distlock throws.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the lock, method, expression or property at fault
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause the underlying failure
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
