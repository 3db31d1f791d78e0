package dev.distlock.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

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

    /** Generators made so far; for tests. */
    private static final AtomicInteger generators = new AtomicInteger();

    private static final SecureRandom[] RANDOM = newRandoms();

    private OwnerTokens() {
    }

    static String next() {
        byte[] random = new byte[16];
        long id = Thread.currentThread().getId();
        RANDOM[(int) (id ^ (id >>> 32)) & (STRIPES - 1)].nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** @return the number of generators made; stays at {@link #STRIPES} (for tests) */
    static int generators() {
        return generators.get();
    }

    private static SecureRandom[] newRandoms() {
        SecureRandom[] randoms = new SecureRandom[STRIPES];
        for (int i = 0; i < STRIPES; i++) {
            randoms[i] = newRandom();
        }
        return randoms;
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
}
