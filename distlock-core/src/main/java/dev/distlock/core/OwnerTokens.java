package dev.distlock.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Unguessable owner tokens: 128 random bits per acquisition, base64url without padding (22 characters of
 * {@code [A-Za-z0-9_-]}, so a store may use {@code :}, {@code ~} or {@code +} as separators around them).
 */
final class OwnerTokens {

    /**
     * Generators, a fixed number of them, each used by the threads whose id falls on it. The platform default
     * (NativePRNG) serialises every caller on one lock and showed up as a tenth of the lock path's CPU under 64
     * threads; one DRBG (NIST SP 800-90A, as unguessable) per thread avoided that but made and seeded a new
     * generator from the OS entropy source for every new thread — with virtual threads, one per request. Twice as
     * many stripes as processors keep contention on each generator's lock low.
     */
    static final int STRIPES = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 2 - 1)
            << 1;

    private static final int TOKEN_BYTES = 16;

    /**
     * Tokens drawn from a generator at once. A DRBG call costs its state update and locking whatever it returns
     * (about four SHA-256 blocks for 16 bytes, 19 for 1 KiB): drawing 16 bytes per acquisition was a tenth of the
     * uncontended lock path's own CPU (issue 22, step 3). Drawn tokens are as unguessable as ever: each is fresh
     * output of the generator, used once, and the unused ones never leave this class.
     */
    static final int BATCH = 64;

    /** Generators made so far; for tests. */
    private static final AtomicInteger generators = new AtomicInteger();

    /** Draws from the generators so far; for tests. */
    private static final AtomicLong draws = new AtomicLong();

    private static final Stripe[] STRIPE = newStripes();

    private OwnerTokens() {
    }

    static String next() {
        long id = Thread.currentThread().getId();
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(STRIPE[(int) (id ^ (id >>> 32)) & (STRIPES - 1)].next());
    }

    /** @return the number of generators made; stays at {@link #STRIPES} (for tests) */
    static int generators() {
        return generators.get();
    }

    /** @return the number of times a generator was asked for random bytes (for tests) */
    static long draws() {
        return draws.get();
    }

    private static Stripe[] newStripes() {
        Stripe[] stripes = new Stripe[STRIPES];
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(newRandom());
        }
        return stripes;
    }

    private static SecureRandom newRandom() {
        generators.incrementAndGet();
        try {
            return SecureRandom.getInstance("DRBG");
        }
        catch (NoSuchAlgorithmException ex) {
            return new SecureRandom();
        }
    }

    /** One generator and the tokens drawn from it but not handed out yet; a lock, so virtual threads never pin. */
    private static final class Stripe {

        private final SecureRandom random;

        private final ReentrantLock lock = new ReentrantLock();

        private final byte[] drawn = new byte[BATCH * TOKEN_BYTES];

        private int next = drawn.length;

        Stripe(SecureRandom random) {
            this.random = random;
        }

        byte[] next() {
            byte[] token = new byte[TOKEN_BYTES];
            lock.lock();
            try {
                if (next == drawn.length) {
                    random.nextBytes(drawn);
                    draws.incrementAndGet();
                    next = 0;
                }
                System.arraycopy(drawn, next, token, 0, TOKEN_BYTES);
                next += TOKEN_BYTES;
            }
            finally {
                lock.unlock();
            }
            return token;
        }
    }
}
