package dev.distlock.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

/**
 * A separate JVM that takes a lock in the database and holds it until it is killed; used to show that a crashed
 * holder blocks the lock for at most its lease. Arguments: JDBC URL, table, lock name, lease in ms, and optionally
 * the permits of the name (a lock without). Prints "LOCKED token".
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args JDBC URL, table, lock name, lease ms[, permits]
     * @throws InterruptedException never in practice: the process is killed while sleeping
     */
    public static void main(String[] args) throws InterruptedException {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(args[0]);
        pool.setUsername("sa");
        pool.setMaximumPoolSize(2);
        StoreLockService service = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName(args[1])), LockConfig.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(
                        args[3])))
                // A cold JVM's first statements on a busy machine can take seconds (seen: over 2 s on PostgreSQL);
                // what the crash tests check starts once it holds the lock, so its start-up is not what is timed.
                .withCommandTimeout(Duration.ofSeconds(15)), LockListener.NONE);
        service.start();
        int permits = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        LockOptions options = LockOptions.defaults().withPermits(permits);
        // A lease runs from the moment its request is sent. A cold JVM's first one also waits for the pool's first
        // connection and the driver's classes (seen: 1.3 s with MySQL Connector/J on a busy machine), so the first
        // renewal came after the deadline guard had ended a 2 s lease: the store was right, the test was not
        // measuring what it names. One lock of another name in the same mode first warms the pool and the driver.
        service.lock(args[2] + "-warm-up", options).unlock();
        LockHandle handle = service.lock(args[2], options);
        System.out.println(HolderJvm.LOCKED + handle.fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // holds the lock, watchdog renewing, until SIGKILL
    }
}
