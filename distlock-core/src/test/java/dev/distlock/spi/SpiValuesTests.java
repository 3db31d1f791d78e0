package dev.distlock.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import dev.distlock.LockType;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The value types of the SPI that carry logic: the mode a store sees, the waiting a request does, a busy answer, the
 * traits and their forwarding.
 */
class SpiValuesTests {

    @Test
    void theModeIsDerivedOnceFromTheTypeAndThePermits() {
        assertThat(LockMode.of(LockType.REENTRANT, 1)).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockMode.of(LockType.FAIR, 1)).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockMode.of(LockType.WRITE, 1)).as("a writer is exclusive").isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockMode.of(LockType.READ, 1)).isEqualTo(LockMode.SHARED);
        assertThat(LockMode.of(LockType.REENTRANT, 3)).isEqualTo(new LockMode.Permits(3));
        assertThat(request(LockType.WRITE, 2).mode()).isEqualTo(new LockMode.Permits(2));
        assertThatIllegalArgumentException().isThrownBy(() -> LockMode.of(LockType.READ, 2))
                .withMessageContaining("1 for a read lock");
        assertThatIllegalArgumentException().isThrownBy(() -> LockMode.of(LockType.REENTRANT, 0))
                .withMessageContaining("at least 1");
        assertThatIllegalArgumentException().isThrownBy(() -> new LockMode.Permits(1))
                .withMessageContaining("Exclusive");
    }

    @Test
    void lessThanAMillisecondLeftIsALastTry() {
        assertThat(Waiting.upTo(Duration.ZERO)).isSameAs(Waiting.LAST_TRY);
        assertThat(Waiting.upTo(Duration.ofNanos(999_999))).isSameAs(Waiting.LAST_TRY);
        assertThat(Waiting.upTo(Duration.ofMillis(1))).isEqualTo(new Waiting.Queue(Duration.ofMillis(1)));
        assertThat(Waiting.LAST_TRY.remaining()).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> new Waiting.Queue(Duration.ZERO))
                .withMessageContaining("LAST_TRY");
    }

    @Test
    void aBusyAnswerWaitsAtLeastAMillisecond() {
        assertThat(((Attempt.Busy) Attempt.busy(Duration.ZERO)).retryAfter()).isEqualTo(Duration.ofMillis(1));
        assertThat(((Attempt.Busy) Attempt.busy(Duration.ofMillis(-5))).retryAfter()).isEqualTo(Duration.ofMillis(1));
        assertThat(((Attempt.Busy) Attempt.busy(Duration.ofMillis(40))).refusedAtMicros()).isEmpty();
        assertThat(new Attempt.Busy(Duration.ofMillis(40), OptionalLong.of(7)).refusedAtMicros()).hasValue(7);
        assertThat(Attempt.granted(12)).isEqualTo(new Attempt.Granted(12));
    }

    @Test
    void traitsSayWhatTheEngineDoes() {
        StoreTraits clock = StoreTraits.of(StoreTraits.LeaseKind.EXPIRING, StoreTraits.TokenSource.CLOCK);
        assertThat(clock.leasesExpire()).isTrue();
        assertThat(clock.tokensFollowClock()).isTrue();
        assertThat(clock.permits()).isFalse();
        assertThat(clock.answerAllowance()).isZero();
        StoreTraits session = StoreTraits.of(StoreTraits.LeaseKind.SESSION, StoreTraits.TokenSource.COUNTER)
                .withPermits().withAnswerAllowance(Duration.ofSeconds(2));
        assertThat(session.leasesExpire()).isFalse();
        assertThat(session.tokensFollowClock()).isFalse();
        assertThat(session.permits()).isTrue();
        assertThat(session.answerAllowance()).isEqualTo(Duration.ofSeconds(2));
        assertThatIllegalArgumentException().isThrownBy(() -> clock.withAnswerAllowance(Duration.ofMillis(-1)))
                .withMessageContaining("answerAllowance");
    }

    @Test
    void aForwardingStoreForwardsTraitsAndHandOversToItsDelegate() {
        List<String> started = new ArrayList<>();
        InMemoryLockStore memory = InMemoryLockStore.withClockTokens();
        class HandingOver extends ForwardingLockStore implements HandsOver {
            HandingOver() {
                super(memory);
            }

            @Override
            public void startHandOvers(HandOverEvents events) {
                started.add("delegate");
            }
        }
        ForwardingLockStore forwarding = new ForwardingLockStore(new HandingOver());
        assertThat(forwarding.traits()).isEqualTo(memory.traits());
        forwarding.startHandOvers(new NoHandOvers());
        assertThat(started).containsExactly("delegate");
        // A delegate without the capability is never told.
        new ForwardingLockStore(memory).startHandOvers(new NoHandOvers());
        assertThat(started).containsExactly("delegate");
    }

    private static LockRequest request(LockType type, int permits) {
        return new LockRequest("name", type, "owner", Duration.ZERO, Duration.ofSeconds(30), true, permits);
    }

    private static final class NoHandOvers implements HandOverEvents {

        @Override
        public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
                Duration window) {
        }

        @Override
        public void kept(String name, String keptFor, Duration window) {
        }
    }
}
