package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM whose threads hand one lock to each other locally as fast as they can, printing every fencing
 * token, until it is killed. Arguments: redis port, lock name.
 */
public final class HandOffProcess {

    private HandOffProcess() {
    }

    /**
     * @param args port, lock name
     */
    public static void main(String[] args) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        // Long streaks, so that the kill lands in the middle of one.
        StoreLockService service = new StoreLockService(new RedisLockStore(factory, LockNodes.redisConfig("crash")),
                LockConfig.defaults().withLeaseTime(Duration.ofSeconds(2))
                        .withLocalHandOff(1_000_000, Duration.ofMinutes(1)), LockListener.NONE);
        service.start();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                while (true) {
                    try (LockHandle handle = service.lock(args[1], LockOptions.defaults()
                            .withWaitTime(Duration.ofSeconds(30)))) {
                        synchronized (System.out) {
                            System.out.println("TOKEN " + handle.fencingToken());
                            System.out.flush();
                        }
                    }
                }
            });
            thread.start();
        }
    }
}
