package dev.distlock.core;

import dev.distlock.InvalidPropertyException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code distlock.instance-id}: the default names the application, the host and the process; a blank id or one with
 * control characters (which would break the stores' separators and log lines) is refused, naming the property.
 */
class InstanceIdTests {

    @Test
    void theDefaultIsTheApplicationNameHostAndPid() {
        String id = LockDefaults.instanceId("orders");
        assertThat(id).startsWith("orders@").endsWith(":" + ProcessHandle.current().pid());
        assertThat(id.substring("orders@".length(), id.lastIndexOf(':'))).isNotBlank();
        assertThat(LockDefaults.instanceId(null)).startsWith(LockDefaults.APPLICATION_NAME + "@");
        assertThat(LockDefaults.instanceId("  ")).startsWith(LockDefaults.APPLICATION_NAME + "@");
        assertThat(LockConfig.defaults().instanceId()).isEqualTo(LockDefaults.instanceId(null));
    }

    @Test
    void aConfiguredIdIsKeptAndABadOneRefused() {
        assertThat(LockConfig.defaults().withInstanceId("orders-1").instanceId()).isEqualTo("orders-1");
        assertThatThrownBy(() -> LockConfig.defaults().withInstanceId(" "))
                .isInstanceOf(InvalidPropertyException.class).hasMessageContaining("distlock.instance-id");
        assertThatThrownBy(() -> LockConfig.defaults().withInstanceId("orders\n1"))
                .isInstanceOf(InvalidPropertyException.class).hasMessageContaining("distlock.instance-id");
    }
}
