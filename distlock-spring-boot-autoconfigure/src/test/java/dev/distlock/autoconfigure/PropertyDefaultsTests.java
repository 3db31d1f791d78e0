package dev.distlock.autoconfigure;

import java.util.Map;

import dev.distlock.core.LockConfig;
import dev.distlock.core.LockDefaults;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The text defaults of {@code @DefaultValue} ({@link PropertyDefaults}), bound as Spring Boot binds them, agree
 * with the typed {@link LockDefaults} that the engine uses when it is built without Spring.
 */
class PropertyDefaultsTests {

    @Test
    void boundDefaultsAreTheEngineDefaults() {
        DistlockProperties bound = new Binder(new MapConfigurationPropertySource(Map.of()))
                .bindOrCreate("distlock", DistlockProperties.class);

        assertThat(bound.keyPrefix()).isEqualTo(LockDefaults.KEY_PREFIX);
        assertThat(bound.waitTime()).isEqualTo(LockDefaults.WAIT_TIME);
        assertThat(bound.leaseTime()).isEqualTo(LockDefaults.LEASE_TIME);
        assertThat(bound.onLeaseLost()).isEqualTo(LockDefaults.ON_LEASE_LOST);
        assertThat(bound.commandTimeout()).isEqualTo(LockDefaults.COMMAND_TIMEOUT);
        assertThat(bound.localHandOff().maxCount()).isEqualTo(LockDefaults.LOCAL_HAND_OFF_MAX_COUNT);
        assertThat(bound.localHandOff().maxTime()).isEqualTo(LockDefaults.LOCAL_HAND_OFF_MAX_TIME);
        assertThat(bound.toLockConfig()).isEqualTo(LockConfig.defaults());
    }
}
