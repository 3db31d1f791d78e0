package dev.distlock;

/**
 * The kind of lock to take.
 */
public enum LockType {

    /** Exclusive, reentrant within a call chain. The default. */
    REENTRANT,

    /**
     * Exclusive and reentrant like {@link #REENTRANT}, but never handed off locally to a waiting thread of the same
     * JVM: every release goes to the store, which hands the lock over to its longest waiter (on the stores that queue
     * waiters: Redis, ZooKeeper, etcd). Slower on a hot lock (a store round trip per hand-over), but no instance keeps
     * the lock for a streak of local hand-offs.
     */
    FAIR,

    /** Shared with other readers, excluded by a writer. */
    READ,

    /** Exclusive against readers and other writers. */
    WRITE
}
