package dev.distlock.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockContext;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.jdbc.fencing.FencedJdbc;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A separate JVM that holds a lock in the database on a fixed lease and, on the command {@code WRITE} from its
 * standard input, writes the row the lock protects as a holder that still believes it holds the lock: with
 * {@link FencedJdbc} (mode {@code guarded}, the token from the lock scope) or with a plain {@code UPDATE} (mode
 * {@code plain}, what an application without the guard does). Prints {@code LOCKED token}, then {@code WROTE rows} or
 * {@code STALE message}.
 * <p>
 * Arguments: JDBC URL, lock table, lock name, lease in ms, data table, mode, the balance to write.
 */
public final class FencedHolderProcess {

    private FencedHolderProcess() {
    }

    /**
     * @param args JDBC URL, lock table, lock name, lease ms, data table, guarded|plain, balance
     */
    public static void main(String[] args) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(args[0]);
        pool.setUsername("sa");
        pool.setMaximumPoolSize(2);
        StoreLockService locks = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName(args[1])), LockConfig.defaults()
                        // A cold JVM's first statements on a busy machine can take seconds (seen: a holder that never
                        // locked on PostgreSQL with the 2 s default); the scene starts once it holds the lock.
                        .withCommandTimeout(Duration.ofSeconds(15)), LockListener.NONE);
        locks.start();
        String table = args[4];
        boolean guarded = args[5].equals("guarded");
        long balance = Long.parseLong(args[6]);
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // A fixed lease, not renewed: frozen past it, this holder has lost the lock without knowing.
        locks.runWithLock(args[2], LockOptions.defaults().withLeaseTime(Duration.ofMillis(Long.parseLong(args[3]))),
                () -> {
                    print(HolderJvm.LOCKED + LockContext.current().orElseThrow().fencingToken());
                    await(commands, "WRITE");
                    try {
                        int rows = guarded ? FencedJdbc.of(pool).update(table, "balance = ?", "id = ?", balance, 1)
                                : new JdbcTemplate(pool).update("UPDATE " + table + " SET balance = ? WHERE id = ?",
                                        balance, 1);
                        print("WROTE " + rows);
                    }
                    catch (StaleTokenException ex) {
                        print("STALE " + ex.getMessage());
                    }
                });
        locks.close();
        pool.close();
    }

    private static void await(BufferedReader commands, String command) {
        try {
            for (String line = commands.readLine(); line != null; line = commands.readLine()) {
                if (line.equals(command)) {
                    return;
                }
            }
            throw new IllegalStateException("Standard input ended before " + command);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
