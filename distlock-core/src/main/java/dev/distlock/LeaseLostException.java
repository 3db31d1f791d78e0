package dev.distlock;

/**
 * The lease of a held lock was lost while the work ran (the key expired or was taken over), so mutual exclusion
 * was not guaranteed for the whole of it. Thrown on release when {@code distlock.on-lease-lost=throw}.
 */
public class LeaseLostException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and fencing token
     */
    public LeaseLostException(String message) {
        super(message);
    }
}
