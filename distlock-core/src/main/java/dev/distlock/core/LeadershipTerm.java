package dev.distlock.core;

import java.util.concurrent.atomic.AtomicReference;

/** One leadership term's callbacks ({@link Candidate}): {@code revoked} is told only when {@code granted} was. */
final class LeadershipTerm {

    private enum Told { NOTHING, GRANTED, REVOKED }

    private final AtomicReference<Told> told = new AtomicReference<>(Told.NOTHING);

    /** @return false when the term was revoked before {@code granted} could start: it is not told */
    boolean startGranted() {
        return told.compareAndSet(Told.NOTHING, Told.GRANTED);
    }

    /** @return whether {@code granted} was told, so {@code revoked} must be */
    boolean revoke() {
        return told.getAndSet(Told.REVOKED) == Told.GRANTED;
    }
}
