package dev.distlock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The options' own checks, whichever order the fields are set in. */
class LockOptionsTests {

    @Test
    void holdAtLeastMayNotOutlastAFixedLeaseInEitherOrder() {
        assertThatThrownBy(() -> LockOptions.defaults().withLeaseTime(Duration.ofSeconds(10))
                .withHoldAtLeast(Duration.ofSeconds(11))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("holdAtLeast (PT11S) must not be longer than the fixed leaseTime (PT10S)");
        assertThatThrownBy(() -> LockOptions.defaults().withHoldAtLeast(Duration.ofSeconds(11))
                .withLeaseTime(Duration.ofSeconds(10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast (PT11S)");
        assertThatThrownBy(() -> LockOptions.defaults().withHoldAtLeast(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
        LockOptions scheduled = LockOptions.defaults().withHoldAtLeast(Duration.ofMinutes(5));
        assertThat(scheduled.holdAtLeast()).isEqualTo(Duration.ofMinutes(5));
        assertThat(scheduled.leaseTime()).as("a watchdog lease, made long enough when taken").isEmpty();
        assertThat(scheduled).isNotEqualTo(LockOptions.defaults()).hasToString(
                "LockOptions[waitTime=default, leaseTime=watchdog, type=REENTRANT, holdAtLeast=PT5M]");
        assertThat(LockOptions.defaults().holdAtLeast()).isZero();
    }

    @Test
    void permitsAreAtLeastOneAndOnlyForExclusiveTypesInEitherOrder() {
        assertThat(LockOptions.defaults().permits()).isEqualTo(1);
        LockOptions pool = LockOptions.defaults().withPermits(3).withType(LockType.FAIR);
        assertThat(pool.permits()).isEqualTo(3);
        assertThat(pool).isNotEqualTo(LockOptions.defaults().withType(LockType.FAIR))
                .hasToString("LockOptions[waitTime=default, leaseTime=watchdog, type=FAIR, permits=3]");
        assertThatThrownBy(() -> LockOptions.defaults().withPermits(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be at least 1: 0");
        assertThatThrownBy(() -> LockOptions.defaults().withPermits(2).withType(LockType.READ))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("permits (2) need type REENTRANT or FAIR, not READ");
        assertThatThrownBy(() -> LockOptions.defaults().withType(LockType.WRITE).withPermits(2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not WRITE");
        assertThat(LockOptions.defaults().withType(LockType.READ).withPermits(1).permits()).isEqualTo(1);
    }
}
