package dev.distlock.autoconfigure;

import dev.distlock.LockService;
import dev.distlock.core.StoreLockService;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The central auto-configuration's lock service bean, on a Redis application's class path: switched off, replaced
 * by the application's own, and a bad property failing start-up. The Redis store's own auto-configuration tests are
 * in distlock-redis.
 */
class DistlockAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class));

    @Test
    void disabledMeansNoLockService() {
        runner.withPropertyValues("distlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockService.class));
    }

    @Test
    void userLockServiceReplacesTheAutoConfiguredOne() {
        LockService own = (name, options) -> java.util.Optional.empty();
        runner.withBean(LockService.class, () -> own).run(context -> {
            assertThat(context).doesNotHaveBean(StoreLockService.class);
            assertThat(context.getBean(LockService.class)).isSameAs(own);
        });
    }

    @Test
    void invalidPropertyFailsStartUpNamingIt() {
        runner.withPropertyValues("distlock.lease-time=0s").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.lease-time"));
    }
}
