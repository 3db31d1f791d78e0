package dev.distlock.sample.demo;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The shared table {@code demo_lock_hold}: every instance appends its holds, the page of any instance reads them
 * merged.
 */
@Repository
public class TimelineRepository {

    /** At most this many entries per read, the latest ones: enough for minutes of a flash sale. */
    static final int MAX_READ = 4_000;

    /** At most this many entries kept, whatever their age, so that a long load test cannot fill the disk. */
    static final int MAX_KEPT = 100_000;

    private final JdbcTemplate jdbcTemplate;

    private final JdbcClient jdbc;

    /**
     * @param jdbcTemplate for batch inserts
     * @param jdbc for the rest
     */
    public TimelineRepository(JdbcTemplate jdbcTemplate, JdbcClient jdbc) {
        this.jdbcTemplate = jdbcTemplate;
        this.jdbc = jdbc;
    }

    /**
     * @param holds entries to append, in one batch
     */
    void insert(List<Hold> holds) {
        jdbcTemplate.batchUpdate("INSERT INTO demo_lock_hold (instance_id, lock_name, fencing_token, requested_at, "
                + "acquired_at, released_at, outcome, lock_granted_at, lock_released_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", holds, holds.size(),
                (ps, hold) -> {
                    ps.setString(1, hold.instanceId());
                    ps.setString(2, hold.lockName());
                    ps.setLong(3, hold.fencingToken());
                    ps.setLong(4, hold.requestedAt());
                    setNullable(ps, 5, hold.acquiredAt());
                    ps.setLong(6, hold.releasedAt());
                    ps.setString(7, hold.outcome());
                    setNullable(ps, 8, hold.lockGrantedAt());
                    setNullable(ps, 9, hold.lockReleasedAt());
                });
    }

    /**
     * Deletes entries that ended before {@code before}, and the oldest beyond {@link #MAX_KEPT}.
     *
     * @param before microseconds since the epoch
     */
    void trim(long before) {
        jdbc.sql("DELETE FROM demo_lock_hold WHERE released_at < :before").param("before", before).update();
        Long newest = max(jdbc.sql("SELECT MAX(id) FROM demo_lock_hold").query(Long.class).list());
        if (newest != null) {
            jdbc.sql("DELETE FROM demo_lock_hold WHERE id <= :oldest").param("oldest", newest - MAX_KEPT).update();
        }
    }

    /**
     * @param lockName the lock
     * @param from microseconds since the epoch
     * @param to microseconds since the epoch
     * @return the entries of the lock that overlap {@code [from, to]}, at most {@link #MAX_READ} (the latest ones)
     */
    List<Hold> window(String lockName, long from, long to) {
        return jdbc.sql("SELECT instance_id, lock_name, fencing_token, requested_at, acquired_at, released_at, "
                + "outcome, FALSE AS overlap, lock_granted_at, lock_released_at FROM demo_lock_hold "
                + "WHERE lock_name = :lock AND released_at >= :from AND requested_at <= :to "
                + "ORDER BY released_at DESC LIMIT " + MAX_READ)
                .param("lock", lockName).param("from", from).param("to", to)
                .query(Hold.class)
                .list();
    }

    /**
     * @param lockName the lock
     * @return when the lock's latest entry ended, microseconds since the epoch, or null when there is none
     */
    Long latestEnd(String lockName) {
        return max(jdbc.sql("SELECT MAX(released_at) FROM demo_lock_hold WHERE lock_name = :lock")
                .param("lock", lockName).query(Long.class).list());
    }

    private static void setNullable(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        }
        else {
            ps.setLong(index, value);
        }
    }

    /** The one value of a {@code SELECT MAX(...)}: null on an empty table. */
    private static Long max(List<Long> row) {
        return row.isEmpty() ? null : row.get(0);
    }
}
