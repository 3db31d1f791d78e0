package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.OnLeaseLost;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that takes a lock and holds it until it is killed; used to show that a crashed holder blocks the
 * lock for at most its lease. Arguments: redis port, lock name, lease in ms.
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args port, lock name, lease ms
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        RedisLockService service = new RedisLockService(factory, new RedisLockConfig("proc", Duration.ofSeconds(5),
                Duration.ofMillis(Long.parseLong(args[2])), OnLeaseLost.LOG, Duration.ofSeconds(2),
                Duration.ofDays(1)), dev.distlock.spi.LockListener.NONE);
        service.start();
        LockHandle handle = service.lock(args[1], LockOptions.defaults());
        System.out.println("LOCKED " + handle.fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // holds the lock, watchdog renewing, until SIGKILL
    }
}
