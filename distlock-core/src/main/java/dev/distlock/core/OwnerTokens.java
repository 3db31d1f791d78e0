package dev.distlock.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Unguessable owner tokens: 128 random bits per acquisition, base64url without padding (22 characters of
 * {@code [A-Za-z0-9_-]}, so a store may use {@code :}, {@code ~} or {@code +} as separators around them).
 */
final class OwnerTokens {

    /**
     * One generator per thread: the platform default (NativePRNG) serialises every caller on one lock and showed up
     * as a tenth of the lock path's CPU under 64 threads. DRBG (NIST SP 800-90A) is as unguessable and lock-free
     * across threads this way.
     */
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(OwnerTokens::newRandom);

    private OwnerTokens() {
    }

    static String next() {
        byte[] random = new byte[16];
        RANDOM.get().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private static SecureRandom newRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        }
        catch (NoSuchAlgorithmException ex) {
            return new SecureRandom();
        }
    }
}
