package dev.distlock;

/**
 * The kind of lock to take.
 */
public enum LockType {

    /** Exclusive, reentrant within a call chain. The default. */
    REENTRANT,

    /** Exclusive and reentrant; waiters are served in arrival order. */
    FAIR,

    /** Shared with other readers, excluded by a writer. */
    READ,

    /** Exclusive against readers and other writers. */
    WRITE
}
