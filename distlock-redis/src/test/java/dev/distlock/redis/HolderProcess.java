package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that takes a lock and holds it until it is killed; used to show that a crashed holder blocks the
 * lock for at most its lease. Arguments: redis port, key prefix, {@code batched} or {@code plain} (whether
 * {@link RedisLockConfig#batchedScripts()}), lock name, lease in ms, and optionally the permits
 * of the name (the holder then takes one of them). Prints "LOCKED token".
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args port, key prefix, batched or plain, lock name, lease ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        RedisLockConfig config = LockNodes.redisConfig(args[1]);
        StoreLockService service = new StoreLockService(new RedisLockStore(factory,
                "batched".equals(args[2]) ? config.withBatchedScripts() : config),
                LockConfig.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(args[4]))), LockListener.NONE);
        service.start();
        HolderJvm.holdUntilKilled(service, args[3], args.length > 5 ? Integer.parseInt(args[5]) : 1);
    }
}
