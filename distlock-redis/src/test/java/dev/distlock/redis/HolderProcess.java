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
 * lock for at most its lease. Arguments: redis port, key prefix, lock name, lease in ms, and optionally the permits
 * of the name (the holder then takes one of them). Prints "LOCKED token".
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args port, key prefix, lock name, lease ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        StoreLockService service = new StoreLockService(new RedisLockStore(factory, LockNodes.redisConfig(args[1])),
                LockConfig.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(args[3]))), LockListener.NONE);
        service.start();
        HolderJvm.holdUntilKilled(service, args[2], args.length > 4 ? Integer.parseInt(args[4]) : 1);
    }
}
