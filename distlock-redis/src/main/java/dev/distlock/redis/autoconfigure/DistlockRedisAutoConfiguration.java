package dev.distlock.redis.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.redis.MinReplicas;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.redis.RedlockConfig;
import dev.distlock.redis.RedlockStore;
import dev.distlock.spi.LockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis lock store: by default on the application's {@code RedisConnectionFactory} (Lettuce or Jedis), so
 * {@code spring.data.redis.*} — standalone, Sentinel, Cluster, password, ACL user, TLS — applies to locks unchanged;
 * with {@code distlock.redlock.nodes} set, Redlock over those independent masters instead. Chosen when it is the
 * only store on the class path, or by {@code distlock.store=redis}.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class, before = DistlockAutoConfiguration.class)
@ConditionalOnClass({ RedisLockStore.class, RedisConnectionFactory.class })
@ConditionalOnLockStore(RedisLockStoreRegistration.ID)
@EnableConfigurationProperties({ DistlockProperties.class, RedisReplicationProperties.class,
        RedlockProperties.class, RedisClusterProperties.class, RedisScriptProperties.class })
public final class DistlockRedisAutoConfiguration {

    /** Redlock, when {@code distlock.redlock.nodes} lists the masters. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedlockNodesConfigured.class)
    static final class Redlock {

        @Bean(destroyMethod = "")
        @ConditionalOnMissingBean(LockStore.class)
        RedlockStore distlockRedlockStore(DistlockProperties properties, RedlockProperties redlock) {
            // Closed by the lock service that uses it.
            return RedlockStore.connect(new RedlockConfig(redlock.nodes(), properties.keyPrefix(),
                    properties.commandTimeout()));
        }
    }

    /** One Redis (standalone, Sentinel or Cluster) through {@code spring.data.redis.*}. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedlockNodesNotConfigured.class)
    @ConditionalOnBean(RedisConnectionFactory.class)
    static final class SpringDataRedis {

        @Bean(destroyMethod = "")
        @ConditionalOnMissingBean(LockStore.class)
        RedisLockStore distlockRedisLockStore(RedisConnectionFactory connectionFactory,
                DistlockProperties properties, RedisReplicationProperties replication,
                RedisClusterProperties cluster, RedisScriptProperties scripts) {
            // Closed by the lock service that uses it.
            return new RedisLockStore(connectionFactory, new RedisLockConfig(properties.keyPrefix(),
                    properties.commandTimeout(), MinReplicas.parse(replication.minReplicas()),
                    replication.timeout(), false, cluster.shardedPubsub(), scripts.batchedScripts()));
        }
    }

    /** Matches when {@code distlock.redlock.nodes} is not empty (as a list or a comma-separated value). */
    static class RedlockNodesConfigured extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            List<String> nodes = Binder.get(context.getEnvironment())
                    .bind("distlock.redlock.nodes", Bindable.listOf(String.class)).orElse(List.of());
            boolean configured = !nodes.isEmpty();
            String message = configured ? "distlock.redlock.nodes lists " + nodes.size() + " masters"
                    : "distlock.redlock.nodes is empty";
            return new ConditionOutcome(configured == wanted(), message);
        }

        boolean wanted() {
            return true;
        }
    }

    /** Matches when {@code distlock.redlock.nodes} is empty. */
    static final class RedlockNodesNotConfigured extends RedlockNodesConfigured {

        @Override
        boolean wanted() {
            return false;
        }
    }
}
