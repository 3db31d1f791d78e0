package dev.distlock.autoconfigure;

import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.spi.LockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis lock store on the application's {@code RedisConnectionFactory} (Lettuce or Jedis), so
 * {@code spring.data.redis.*} — standalone, Sentinel, Cluster, password, ACL user, TLS — applies to locks
 * unchanged.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ RedisLockStore.class, RedisConnectionFactory.class })
@ConditionalOnLockStore(LockStoreKind.REDIS)
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockRedisAutoConfiguration {

    /**
     * @param connectionFactory the application's Redis connection factory
     * @param properties the {@code distlock.*} settings
     * @return the store
     */
    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    @ConditionalOnBean(RedisConnectionFactory.class)
    public RedisLockStore distlockRedisLockStore(RedisConnectionFactory connectionFactory,
            DistlockProperties properties) {
        return new RedisLockStore(connectionFactory, new RedisLockConfig(properties.keyPrefix(),
                properties.commandTimeout(), properties.replication().minReplicas(),
                properties.replication().timeout()));
    }
}
