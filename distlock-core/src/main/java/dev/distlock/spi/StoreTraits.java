package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What kind of store a {@link LockStore} is, declared once by {@link LockStore#traits()} and read once when the engine
 * is built (the engine never asks the store again).
 *
 * @param leases how a lease ends when nobody renews it
 * @param tokens where the store's fencing tokens come from
 * @param permits whether the store takes requests of several permits ({@link LockMode.Permits}); the rules a store
 *        that does keeps are on {@link LockMode.Permits}. The engine refuses permits on a store without them
 * @param answerAllowance how much longer than {@code distlock.command-timeout} an answer may take by design, e.g. an
 *        attempt that also waits for replicas to acknowledge the write, for up to its own timeout; zero for most
 */
public record StoreTraits(LeaseKind leases, TokenSource tokens, boolean permits, Duration answerAllowance) {

    /** Checks the values. */
    public StoreTraits {
        Objects.requireNonNull(leases, "leases");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(answerAllowance, "answerAllowance");
        if (answerAllowance.isNegative()) {
            throw new IllegalArgumentException("answerAllowance must not be negative: " + answerAllowance);
        }
    }

    /**
     * @param leases how a lease ends when nobody renews it
     * @param tokens where the store's fencing tokens come from
     * @return traits without permits and without an answer allowance
     */
    public static StoreTraits of(LeaseKind leases, TokenSource tokens) {
        return new StoreTraits(leases, tokens, false, Duration.ZERO);
    }

    /** @return these traits with permits supported */
    public StoreTraits withPermits() {
        return new StoreTraits(leases, tokens, true, answerAllowance);
    }

    /**
     * @param allowance as for {@link #answerAllowance()}
     * @return these traits with that answer allowance
     */
    public StoreTraits withAnswerAllowance(Duration allowance) {
        return new StoreTraits(leases, tokens, permits, allowance);
    }

    /** @return true for {@link LeaseKind#EXPIRING}: the engine renews watchdog leases */
    public boolean leasesExpire() {
        return leases == LeaseKind.EXPIRING;
    }

    /** @return true for {@link TokenSource#CLOCK}: the engine may pass a held lock on by local hand-off */
    public boolean tokensFollowClock() {
        return tokens == TokenSource.CLOCK;
    }

    /** How a lease ends when nobody renews it. */
    public enum LeaseKind {

        /**
         * A lease lasts its lease time unless renewed: the engine renews watchdog leases in batches
         * ({@link LockStore#renew}).
         */
        EXPIRING,

        /**
         * A lease lasts as long as the store's session (ZooKeeper, etcd's shared leases): the engine renews nothing,
         * and the store reports a lost lease through {@link StoreEvents#leaseLost}. Such a store must see its
         * releases and cancels through: the engine sends each once, and an entry left behind would block the lock
         * for as long as the session lasts (Curator's guaranteed deletes, or a delete sent again until confirmed).
         */
        SESSION
    }

    /** Where the fencing tokens come from. */
    public enum TokenSource {

        /**
         * Every token is at least the store's clock in µs and above every earlier token of the name. The engine may
         * then pass a held lock to another thread of its JVM (local hand-off) with the next token without asking
         * the store, since a token the store issues later is higher anyway; in return the store must keep the
         * {@link LockStore#release released lease's} token as the floor of the name's next token.
         */
        CLOCK,

        /**
         * Tokens come from a counter (a sequence, a revision, a row's version): the engine never issues a token
         * itself, so every holder's token comes from the store.
         */
        COUNTER
    }
}
