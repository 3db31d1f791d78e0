package dev.distlock.quorum;

import java.time.Duration;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the quorum remembers of its grants: the first token while the grant surely holds, the new one after a
 * release or once the lease's deadline passed, and no more entries than the live grants need.
 */
class GrantedTokensTests {

    private final GrantedTokens tokens = new GrantedTokens();

    private static LockRequest request(String owner, Duration lease) {
        return new LockRequest("stock:1", LockType.REENTRANT, owner, Duration.ZERO, lease, false);
    }

    @Test
    void theHolderKeepsItsFirstTokenUntilItsGrantIsForgotten() {
        LockRequest holder = request("holder", Duration.ofSeconds(30));
        long now = System.nanoTime();
        assertThat(tokens.grant(holder, 5, now)).isEqualTo(5);
        assertThat(tokens.grant(holder, 9, now)).as("asked again, another majority").isEqualTo(5);
        tokens.renewed(holder, System.nanoTime());
        assertThat(tokens.grant(holder, 11, now)).isEqualTo(5);
        tokens.forget(holder);
        assertThat(tokens.grant(holder, 12, now)).as("after a release").isEqualTo(12);
    }

    @Test
    void aGrantPastItsDeadlineIsNotKept() {
        LockRequest holder = request("holder", Duration.ofSeconds(30));
        long longAgo = System.nanoTime() - Duration.ofSeconds(31).toNanos();
        assertThat(tokens.grant(holder, 5, longAgo)).isEqualTo(5);
        assertThat(tokens.grant(holder, 9, System.nanoTime())).as("the first grant ran out").isEqualTo(9);
    }

    @Test
    void expiredGrantsAreSweptAsNewOnesComeIn() {
        long longAgo = System.nanoTime() - Duration.ofSeconds(31).toNanos();
        for (int i = 0; i < 10_000; i++) {
            tokens.grant(request("owner-" + i, Duration.ofSeconds(30)), i + 1, longAgo);
        }
        assertThat(tokens.size()).isLessThanOrEqualTo(65);
    }
}
