package dev.distlock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owner tokens: 128 unguessable bits each, URL-safe, never repeated, and made by a bounded set of random generators
 * however many threads ask, in particular a new (virtual) thread per request (a generator per thread would be seeded
 * from the OS entropy source on every acquisition).
 */
class OwnerTokensTests {

    @Test
    void tokensAre22UrlSafeCharactersOf128RandomBitsAndNeverRepeat() {
        Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String token = OwnerTokens.next();
            assertThat(token).hasSize(22).matches("[A-Za-z0-9_-]{22}");
            assertThat(seen.add(token)).as("unique").isTrue();
        }
    }

    @Test
    void aThreadPerAcquisitionDoesNotMakeAGeneratorPerThread() throws Exception {
        // One short-lived thread per request, as with virtual threads (spring.threads.virtual.enabled).
        int before = OwnerTokens.generators();
        Set<String> tokens = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            Thread thread = new Thread(() -> tokens.add(OwnerTokens.next()));
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(tokens).hasSize(2_000);
        assertThat(OwnerTokens.generators() - before).as("generators made for 2,000 threads")
                .isLessThanOrEqualTo(OwnerTokens.STRIPES);
    }
}
