package dev.distlock;

/**
 * What the caller sees, when the work returns, if the lease of its lock was lost while the work ran
 * ({@code distlock.on-lease-lost}). The loss itself is always logged at WARN and counted.
 */
public enum OnLeaseLost {

    /** Log and count only; the work's result is returned. The default. */
    LOG,

    /** Throw {@link LeaseLostException} from the release, so the caller knows exclusion was not guaranteed. */
    THROW
}
