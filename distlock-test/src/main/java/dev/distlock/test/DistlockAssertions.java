package dev.distlock.test;

/**
 * AssertJ entry point for distlock's test support.
 * <pre>{@code
 * import static dev.distlock.test.DistlockAssertions.assertThat;
 *
 * assertThat(locks).ranUnderLock("stock:42", () -> stock.deduct(42, 1));
 * assertThat(locks).hasBeenAcquired("stock:42").hasNoLockHeld();
 * }</pre>
 */
public final class DistlockAssertions {

    private DistlockAssertions() {
    }

    /**
     * @param locks the lock service under test
     * @return assertions on what it granted
     */
    public static LockServiceAssert assertThat(InMemoryLockService locks) {
        return new LockServiceAssert(locks);
    }
}
