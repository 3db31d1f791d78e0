package dev.distlock.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
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
        HolderJvm.holdUntilKilled(service, args[2], args.length > 4 ? Integer.parseInt(args[4]) : 1);
    }
}
