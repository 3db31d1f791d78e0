package dev.distlock.autoconfigure;

import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spi.CompositeLockListener;
import dev.distlock.spi.LockListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configures the {@link LockService} on the application's Lettuce {@code RedisConnectionFactory}, so
 * {@code spring.data.redis.*} (standalone, Sentinel, Cluster, password, ACL user, TLS) applies to locks unchanged.
 * Off with {@code distlock.enabled=false}; replaced by any {@link LockService} bean of the application's own.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockAutoConfiguration {

    /**
     * The lock service. Every {@link LockListener} bean (metrics, tracing) receives its events.
     *
     * @param connectionFactory the Redis connection factory
     * @param properties the {@code distlock.*} settings
     * @param listeners the event listeners
     * @return the started lock service; destroyed (locks released, watchdog stopped) with the context
     */
    @Bean(initMethod = "start")
    @ConditionalOnMissingBean(LockService.class)
    @ConditionalOnBean(LettuceConnectionFactory.class)
    public RedisLockService lockService(LettuceConnectionFactory connectionFactory, DistlockProperties properties,
            ObjectProvider<LockListener> listeners) {
        return new RedisLockService(connectionFactory, properties.toLockConfig(),
                CompositeLockListener.of(listeners.orderedStream().toList()));
    }
}
