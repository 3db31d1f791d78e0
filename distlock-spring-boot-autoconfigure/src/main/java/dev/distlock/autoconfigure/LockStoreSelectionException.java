package dev.distlock.autoconfigure;

import java.util.Objects;

/**
 * The application cannot get a lock store: {@code @DistributedLock} methods but no store on the class path (or
 * nothing for the store to work with), several stores and no {@code distlock.store}, a {@code distlock.store} that
 * names none, or permits on a store without them. Start-up fails with it; {@link LockStoreFailureAnalyzer} reports
 * the message as the description and {@link #action()} as what to do.
 */
public class LockStoreSelectionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param description what is wrong, naming the method, property or stores at fault
     * @param action what to do about it
     */
    public LockStoreSelectionException(String description, String action) {
        super(description);
        this.action = Objects.requireNonNull(action, "action");
    }

    /** @return what to do about it */
    public String action() {
        return action;
    }
}
