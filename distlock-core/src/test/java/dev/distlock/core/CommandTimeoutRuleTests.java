package dev.distlock.core;

import java.time.Duration;

import dev.distlock.InvalidPropertyException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code distlock.command-timeout} has one rule, whoever sets it (the Boot properties build a {@link LockConfig}):
 * at least 1 ms, since the stores count it in whole milliseconds.
 */
class CommandTimeoutRuleTests {

    @Test
    void belowOneMillisecondIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> LockConfig.defaults().withCommandTimeout(Duration.ofNanos(500_000)))
                .isInstanceOf(InvalidPropertyException.class).hasMessageContaining("distlock.command-timeout")
                .hasMessageContaining("at least 1 ms");
        assertThatThrownBy(() -> LockConfig.defaults().withCommandTimeout(Duration.ZERO))
                .isInstanceOf(InvalidPropertyException.class);
        assertThat(LockConfig.defaults().withCommandTimeout(Duration.ofMillis(1)).commandTimeout())
                .isEqualTo(Duration.ofMillis(1));
    }
}
