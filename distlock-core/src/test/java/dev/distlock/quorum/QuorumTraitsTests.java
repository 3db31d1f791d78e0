package dev.distlock.quorum;

import java.time.Duration;
import java.util.List;

import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreTraits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A quorum derives its traits from its nodes' once.
 */
class QuorumTraitsTests {

    private static final Duration MARGIN = Duration.ofMillis(50);

    private static final StoreTraits CLOCK = StoreTraits.of(StoreTraits.LeaseKind.EXPIRING,
            StoreTraits.TokenSource.CLOCK).withPermits();

    private static final StoreTraits COUNTER = StoreTraits.of(StoreTraits.LeaseKind.EXPIRING,
            StoreTraits.TokenSource.COUNTER).withPermits();

    @Test
    void clockTokensOnlyWhenEveryNodesAreAndNeverPermits() {
        StoreTraits allClock = QuorumTraits.derive(List.of(CLOCK, CLOCK, CLOCK), MARGIN);
        assertThat(allClock.tokens()).isEqualTo(StoreTraits.TokenSource.CLOCK);
        assertThat(allClock.leases()).isEqualTo(StoreTraits.LeaseKind.EXPIRING);
        assertThat(allClock.permits()).as("a majority cannot bound permits").isFalse();
        assertThat(QuorumTraits.derive(List.of(CLOCK, COUNTER, CLOCK), MARGIN).tokens())
                .isEqualTo(StoreTraits.TokenSource.COUNTER);
    }

    @Test
    void theAnswerAllowanceIsTheLongestNodesPlusTheMargin() {
        StoreTraits slow = CLOCK.withAnswerAllowance(Duration.ofSeconds(2));
        StoreTraits slower = CLOCK.withAnswerAllowance(Duration.ofSeconds(3));
        assertThat(QuorumTraits.derive(List.of(slow, CLOCK, slower), MARGIN).answerAllowance())
                .isEqualTo(Duration.ofSeconds(3).plus(MARGIN));
        assertThat(QuorumTraits.derive(List.of(CLOCK, CLOCK, CLOCK), MARGIN).answerAllowance()).isEqualTo(MARGIN);
    }

    @Test
    void aQuorumOfInMemoryStoresHasTheDerivedTraits() {
        List<LockStore> nodes = List.of(InMemoryLockStore.withClockTokens(), InMemoryLockStore.withClockTokens(),
                InMemoryLockStore.withClockTokens());
        try (QuorumLockStore quorum = new QuorumLockStore(new QuorumConfig(nodes, Duration.ofSeconds(1)))) {
            assertThat(quorum.traits().tokensFollowClock()).isTrue();
            assertThat(quorum.traits().permits()).isFalse();
        }
    }
}
