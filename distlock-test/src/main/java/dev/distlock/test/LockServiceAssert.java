package dev.distlock.test;

import java.util.List;

import dev.distlock.LockHandle;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Assertions on what an {@link InMemoryLockService} granted: outermost acquisitions, counted by lock name (a
 * reentrant acquisition inside a scope that holds the lock is not a grant), since the service started or
 * {@link InMemoryLockService#clearGrants() forgot} them. Obtained from
 * {@link DistlockAssertions#assertThat(InMemoryLockService)}.
 */
public final class LockServiceAssert extends AbstractAssert<LockServiceAssert, InMemoryLockService> {

    LockServiceAssert(InMemoryLockService actual) {
        super(actual, LockServiceAssert.class);
    }

    /**
     * Checks that the lock was granted at least once.
     *
     * @param name the lock name
     * @return this
     */
    public LockServiceAssert hasBeenAcquired(String name) {
        isNotNull();
        if (count(name) == 0) {
            failWithMessage("Expected lock '%s' to have been acquired, but %s", name, acquiredSoFar());
        }
        return this;
    }

    /**
     * Checks how often the lock was granted.
     *
     * @param name the lock name
     * @param times how many times
     * @return this
     */
    public LockServiceAssert hasBeenAcquired(String name, int times) {
        isNotNull();
        long count = count(name);
        if (count != times) {
            failWithMessage("Expected lock '%s' to have been acquired %s time(s), but it was acquired %s time(s)",
                    name, times, count);
        }
        return this;
    }

    /**
     * Checks that the lock was never granted.
     *
     * @param name the lock name
     * @return this
     */
    public LockServiceAssert hasNotBeenAcquired(String name) {
        isNotNull();
        long count = count(name);
        if (count > 0) {
            failWithMessage("Expected lock '%s' not to have been acquired, but it was acquired %s time(s)", name,
                    count);
        }
        return this;
    }

    /**
     * Checks that every lock the service granted was released (or its lease ended).
     *
     * @return this
     */
    public LockServiceAssert hasNoLockHeld() {
        isNotNull();
        List<String> held = actual.grants().stream().filter(grant -> grant.handle().isHeld())
                .map(InMemoryLockService.Grant::name).toList();
        if (!held.isEmpty()) {
            failWithMessage("Expected no lock to be held, but these are: %s", held);
        }
        return this;
    }

    /**
     * Checks that a grant of the lock is still held.
     *
     * @param name the lock name
     * @return this
     */
    public LockServiceAssert isHeld(String name) {
        isNotNull();
        if (actual.grants().stream().noneMatch(grant -> grant.name().equals(name) && grant.handle().isHeld())) {
            failWithMessage("Expected lock '%s' to be held, but it is not (%s)", name,
                    count(name) == 0 ? "it was never acquired" : "it was released or its lease ended");
        }
        return this;
    }

    /**
     * Runs the call and checks that it ran under the lock: the lock was acquired during the call (not
     * re-entered from an enclosing scope) and released by the time it returned.
     *
     * @param name the lock name
     * @param call the call, e.g. a method annotated with {@code @DistributedLock}
     * @return this
     */
    public LockServiceAssert ranUnderLock(String name, ThrowingCallable call) {
        isNotNull();
        int before = actual.grants().size();
        try {
            call.call();
        }
        catch (Throwable ex) {
            String description = info.descriptionText();
            // With the exception as the cause, so that its stack trace shows what went wrong.
            throw new AssertionError((description.isEmpty() ? "" : "[" + description + "] ")
                    + "Expected the call to run under lock '" + name + "', but it threw " + ex, ex);
        }
        List<InMemoryLockService.Grant> all = actual.grants(); // one copy: other threads may be granted locks
        List<InMemoryLockService.Grant> during = all.subList(Math.min(before, all.size()), all.size());
        List<LockHandle> matching = during.stream().filter(grant -> grant.name().equals(name))
                .map(InMemoryLockService.Grant::handle).toList();
        if (matching.isEmpty()) {
            failWithMessage("Expected the call to run under lock '%s', but it %s", name, during.isEmpty()
                    ? "acquired no lock" : "acquired only " + names(during));
        }
        if (matching.stream().anyMatch(LockHandle::isHeld)) {
            failWithMessage("Expected lock '%s' to be released when the call returned, but it is still held", name);
        }
        return this;
    }

    private long count(String name) {
        return actual.grants().stream().filter(grant -> grant.name().equals(name)).count();
    }

    private String acquiredSoFar() {
        List<InMemoryLockService.Grant> all = actual.grants();
        return all.isEmpty() ? "no lock was acquired" : "the locks acquired were " + names(all);
    }

    private static List<String> names(List<InMemoryLockService.Grant> grants) {
        return grants.stream().map(InMemoryLockService.Grant::name).distinct().toList();
    }
}
