package dev.distlock.jdbc;

import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relational-database {@link LockStore}: one row per lock name in one table (see {@link LockSql}), on the
 * application's {@link DataSource}. PostgreSQL and H2.
 * <ul>
 * <li>An attempt is one statement that takes a free or expired row (or inserts the row of a new name) for the
 * request's owner token, with a lease ending at the database's {@code CURRENT_TIMESTAMP} plus the lease time and a
 * new fencing token read from the row. It holds no row lock beyond that statement: nothing stays locked while the
 * caller's work runs.</li>
 * <li>A busy answer asks the engine to try again after a back-off that grows with the time already waited (polling:
 * there is no release notification between nodes; threads of one JVM are handed the lock locally by the engine).</li>
 * <li>A release is one owner-checked {@code UPDATE} that clears the owner and ends the lease; the row stays for
 * the row retention ({@link JdbcLockConfig#rowRetention()}), then a {@link RowSweeper} deletes it, so the table holds
 * the names locked recently rather than every name ever locked. A name locked again after its row was deleted gets
 * a token from the database clock, which the sweep condition keeps above the deleted row's last token.</li>
 * <li>A cancel is the same owner-checked release: a waiter leaves no trace in the table, but an attempt whose
 * answer the caller never took may have taken the row for the request's owner token.</li>
 * <li>Renewals are one JDBC batch of owner-checked {@code UPDATE}s per call, in one transaction, in lock-name order
 * (two nodes' batches never wait for each other in a cycle); leases of permits add two batches in the same
 * transaction, their name rows' leases first, then their slot rows.</li>
 * <li>Every call runs on a thread of the store ({@link ConnectionCalls}), never the caller's, which waits for the
 * answer only as long as the engine allows ({@code distlock.command-timeout}). Each statement also carries that
 * timeout, rounded up to whole seconds, so that the database gives up too.</li>
 * <li>{@code READ} locks are exclusive here: sharing needs a reader set per name whose consistency with the writer
 * row would depend on each database's isolation rules; an exclusive read lock is always safe, only less
 * concurrent.</li>
 * <li>Permits ({@link StoreTraits#permits()}) live in the same table, without another column ({@link PermitRows}):
 * the name's row, its {@code owner_token} the marker {@code #<permits>}, counts the tokens; each holder has one of
 * permits slot rows {@code <name>U+001F<index>}. A grant is one short transaction ({@link PermitTransactions}) that
 * locks the name row first, so concurrent grants of a name follow each other: it counts the live slot rows, takes
 * a free or expired one and the next token from the name row (tokens increase in grant order across the holders,
 * and never repeat). Like a lock's, a permit's lease ends on the database clock, so a holder that died frees its
 * permit within its lease; waiters poll, in no order across nodes. A release, cancel or renewal is one
 * owner-checked statement on the holder's slot row (a renewal also extends the name row's lease, which outlasts
 * every holder's). A lock request on a name held with permits, or the reverse, fails with
 * {@link LockRequest#permitsMismatch}; once every holder is gone either kind may take the name. Lock names may not
 * contain U+001F, and a name with permits must leave room for the slot suffix in the 255 characters.</li>
 * </ul>
 */
public class JdbcLockStore implements LockStore {

    /** The size of the {@code lock_name} column. */
    static final int MAX_NAME_LENGTH = 255;

    /** Bounds of the back-off between attempts of a waiter; the engine caps it at 500 ms in any case. */
    static final long MIN_BACKOFF_MILLIS = 5;

    static final long MAX_BACKOFF_MILLIS = 100;

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    /** Lock-name order: two batches that touch a common row lock their rows in the same order (no deadlock). */
    private static final Comparator<Lease> ROW_ORDER = Comparator.comparing((Lease lease) -> lease.request().name())
            .thenComparing(lease -> lease.request().ownerToken());

    private final DataSource dataSource;

    private final JdbcLockConfig config;

    /** {@link java.sql.Statement#setQueryTimeout} of every statement: the command timeout in whole seconds. */
    private final int queryTimeoutSeconds;

    private final ConnectionCalls calls;

    private final RowSweeper sweeper;

    private final PermitTransactions permits;

    private volatile @Nullable LockSql sql;

    /**
     * @param dataSource the application's data source; each call takes a connection for itself and returns it
     * @param config the settings
     */
    public JdbcLockStore(DataSource dataSource, JdbcLockConfig config) {
        this.dataSource = dataSource;
        this.config = config;
        this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE,
                (config.commandTimeout().toMillis() + 999) / 1000);
        this.calls = new ConnectionCalls(dataSource, config.commandTimeout());
        this.sweeper = new RowSweeper(this::deleteExpiredRows, config.rowRetention());
        this.permits = new PermitTransactions(this::prepare);
    }

    /** Leases expire; tokens come from a counter kept in the row; permits in the lock table ({@link PermitRows}). */
    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING, StoreTraits.TokenSource.COUNTER).withPermits();
    }

    /** @return the settings */
    public JdbcLockConfig config() {
        return config;
    }

    /** @return the data source the locks live in */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Starts deleting the rows of names free for longer than the row retention. Nothing else to start: waiters
     * poll, and the database being unreachable now must not fail the start.
     */
    @Override
    public void start(StoreEvents events) {
        sweeper.start();
    }

    /**
     * Runs on the sweeper's own thread, which may wait for the database.
     *
     * @param batch the most rows to delete
     * @return how many rows of names free for longer than the row retention were deleted
     * @throws LockUnavailableException when the database cannot answer
     */
    int deleteExpiredRows(int batch) {
        long retentionMillis = config.rowRetention().toMillis();
        return calls.run("delete expired lock rows", connection -> {
            LockSql statements = sql(connection);
            try (PreparedStatement statement = prepare(connection, statements.deleteExpired())) {
                statements.bindDeleteExpired(statement, retentionMillis, batch);
                return statement.executeUpdate();
            }
            catch (SQLException ex) {
                throw SqlErrors.explain(ex, config.tableName());
            }
        });
    }

    /** @return the rows one sweep deleted (for tests: sweeps also run on their own once started) */
    int sweep() {
        return sweeper.sweep();
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        String refusal = PermitRows.refusal(request);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        return calls.submit("acquire lock '" + request.name() + "'", connection -> {
            try {
                LockSql statements = sql(connection);
                return request.mode() instanceof LockMode.Permits ? permits.acquire(connection, statements, request)
                        : acquireLock(connection, statements, request);
            }
            catch (SQLException ex) {
                if (SqlErrors.isContention(ex)) {
                    // another caller took the row at the same moment: as good as busy
                    return PermitTransactions.BUSY;
                }
                throw SqlErrors.explain(ex, config.tableName());
            }
        }).thenCompose(outcome -> answer(outcome, request, waiting.remaining().toMillis()));
    }

    private static CompletionStage<Attempt> answer(PermitTransactions.Outcome outcome, LockRequest request,
            long remainingWaitMillis) { // a poll: no line to join, so a last try and a queueing one are alike
        if (outcome instanceof PermitTransactions.Granted granted) {
            return CompletableFuture.completedFuture(Attempt.granted(granted.fencingToken()));
        }
        if (outcome instanceof PermitTransactions.HeldWithOtherPermits other) {
            return CompletableFuture.failedFuture(request.permitsMismatch(other.permits()));
        }
        return CompletableFuture.completedFuture(Attempt.busy(Duration.ofMillis(backoff(request, remainingWaitMillis))));
    }

    /**
     * A lock: the one upsert statement takes a free or expired row. Refused, it may have met a name used with
     * permits, whose marked row's lease runs as long as its longest permit's: the name is then the permits' (an
     * error for this request) while any is held, else the lock may take it over.
     */
    private PermitTransactions.Outcome acquireLock(Connection connection, LockSql statements, LockRequest request)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, statements.acquire())) {
            statements.bindAcquire(statement, request.name(), request.ownerToken(), request.leaseMillis());
            try (ResultSet rows = statement.executeQuery()) {
                if (rows.next()) {
                    return new PermitTransactions.Granted(rows.getLong(1));
                }
            }
        }
        String holder;
        try (PreparedStatement owner = prepare(connection, statements.liveOwner())) {
            owner.setString(1, request.name());
            try (ResultSet rows = owner.executeQuery()) {
                holder = rows.next() ? rows.getString(1) : null;
            }
        }
        return PermitRows.permitsOf(holder).isPresent() ? permits.acquire(connection, statements, request)
                : PermitTransactions.BUSY;
    }

    /**
     * The wait before the next attempt: short at first, so that a lock held briefly changes hands quickly, then
     * longer the longer the caller has waited (fewer queries for a lock held long), with jitter so that waiters on
     * several nodes do not ask in step.
     */
    static long backoff(LockRequest request, long remainingWaitMillis) {
        long waited = Math.max(0, request.waitTime().toMillis() - remainingWaitMillis);
        long base = Math.min(MAX_BACKOFF_MILLIS, Math.max(MIN_BACKOFF_MILLIS, waited / 4));
        return base + ThreadLocalRandom.current().nextLong(base / 2 + 1);
    }

    /**
     * Frees the row if the request's owner token holds it (an attempt granted it but the caller never learned); a
     * waiter leaves no trace in the table.
     */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        if (PermitRows.refusal(request) != null) {
            return CompletableFuture.completedFuture(null); // never attempted: nothing to undo
        }
        return calls.submit("cancel a request for lock '" + request.name() + "'",
                connection -> release(connection, request, 0)).thenApply(rows -> null);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        return calls.submit("release lock '" + request.name() + "'",
                connection -> release(connection, request, lease.fencingToken()) == 1
                        ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED);
    }

    /**
     * @param fencingToken the released lease's token, kept by the row when higher than its own (see
     *        {@link LockSql#release()}); 0 for an undo, whose grant nobody used
     */
    private int release(Connection connection, LockRequest request, long fencingToken) throws SQLException {
        if (request.mode() instanceof LockMode.Permits) {
            // The slot row keeps its token, the name row counts them: the released token needs no keeping.
            try (PreparedStatement statement = prepare(connection, sql(connection).releasePermit())) {
                statement.setArray(1, PermitTransactions.keys(connection, request.name(), request.permits()));
                statement.setString(2, request.ownerToken());
                return statement.executeUpdate();
            }
            catch (SQLException ex) {
                throw SqlErrors.explain(ex, config.tableName());
            }
        }
        try (PreparedStatement statement = prepare(connection, sql(connection).release())) {
            statement.setLong(1, fencingToken);
            statement.setString(2, request.name());
            statement.setString(3, request.ownerToken());
            return statement.executeUpdate();
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, config.tableName());
        }
    }

    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        if (!PermitRows.storable(name)) {
            return CompletableFuture.completedFuture(false); // a name no attempt could have stored
        }
        return calls.submit("force the release of lock '" + name + "'", connection -> {
            try {
                return permits.forceRelease(connection, sql(connection), name);
            }
            catch (SQLException ex) {
                throw SqlErrors.explain(ex, config.tableName());
            }
        });
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        List<Lease> ordered = new ArrayList<>(leases);
        ordered.sort(ROW_ORDER);
        return calls.submit("renew " + leases.size() + " leases", connection -> {
            int[] counts = renew(connection, ordered);
            Map<Lease, RenewalResult> outcome = new LinkedHashMap<>();
            for (int i = 0; i < ordered.size(); i++) {
                outcome.put(ordered.get(i), counts[i] == 1 ? RenewalResult.RENEWED : RenewalResult.LOST);
            }
            List<RenewalResult> results = new ArrayList<>(leases.size());
            for (Lease lease : leases) {
                results.add(outcome.getOrDefault(lease, RenewalResult.ERROR));
            }
            return results;
        });
    }

    /**
     * @return per lease of the batch, the rows renewed (1 when renewed); locks and permits each in one JDBC batch,
     *         all in one transaction
     */
    private int[] renew(Connection connection, List<Lease> batch) throws SQLException {
        List<Lease> locks = new ArrayList<>(batch.size());
        List<Lease> permitLeases = new ArrayList<>();
        for (Lease lease : batch) {
            ((lease.request().mode() instanceof LockMode.Permits) ? permitLeases : locks).add(lease);
        }
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false); // one commit (one log flush) for the whole batch
        try {
            LockSql statements = sql(connection);
            Map<Lease, Integer> renewed = new LinkedHashMap<>();
            if (!locks.isEmpty()) {
                try (PreparedStatement statement = prepare(connection, statements.renew())) {
                    for (Lease lease : locks) {
                        statement.setLong(1, lease.request().leaseMillis());
                        statement.setString(2, lease.request().name());
                        statement.setString(3, lease.request().ownerToken());
                        statement.addBatch();
                    }
                    put(renewed, locks, statement.executeBatch());
                }
            }
            if (!permitLeases.isEmpty()) {
                put(renewed, permitLeases, renewPermits(connection, statements, permitLeases));
            }
            connection.commit();
            int[] counts = new int[batch.size()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = renewed.getOrDefault(batch.get(i), 0);
            }
            return counts;
        }
        catch (SQLException ex) {
            connection.rollback();
            throw SqlErrors.explain(ex, config.tableName());
        }
        finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /**
     * Permits: first the name rows' leases (in name order, as every transaction on a name with permits locks its
     * name row before a slot row: no cycle of waits with a grant), only where the name is still held with these
     * permits; then the holders' slot rows, only of those names. A name row's lease so stays at least as long as
     * every permit's, and a permit is never renewed after a forced release or a lock took the name over.
     */
    private int[] renewPermits(Connection connection, LockSql statements, List<Lease> leases) throws SQLException {
        int[] marked;
        try (PreparedStatement statement = prepare(connection, statements.extendMarker())) {
            for (Lease lease : leases) {
                statement.setLong(1, lease.request().leaseMillis());
                statement.setString(2, lease.request().name());
                statement.setString(3, PermitRows.marker(lease.request().permits()));
                statement.addBatch();
            }
            marked = statement.executeBatch();
        }
        List<Lease> held = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            if (marked[i] > 0) {
                held.add(leases.get(i));
            }
        }
        Map<Lease, Integer> renewed = new LinkedHashMap<>();
        if (!held.isEmpty()) {
            try (PreparedStatement statement = prepare(connection, statements.renewPermit())) {
                for (Lease lease : held) {
                    statement.setLong(1, lease.request().leaseMillis());
                    statement.setArray(2, PermitTransactions.keys(connection, lease.request().name(),
                            lease.request().permits()));
                    statement.setString(3, lease.request().ownerToken());
                    statement.addBatch();
                }
                put(renewed, held, statement.executeBatch());
            }
        }
        int[] counts = new int[leases.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = renewed.getOrDefault(leases.get(i), 0);
        }
        return counts;
    }

    private static void put(Map<Lease, Integer> renewed, List<Lease> leases, int[] counts) {
        for (int i = 0; i < leases.size(); i++) {
            renewed.put(leases.get(i), counts[i]);
        }
    }

    /** Up when the lock table answers a query; down (with the reason) when the database fails. */
    @Override
    public CompletionStage<StoreHealth> health() {
        long start = System.nanoTime();
        return calls.submit("answer", connection -> {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("database", connection.getMetaData().getDatabaseProductName() + " "
                    + connection.getMetaData().getDatabaseProductVersion());
            try (PreparedStatement statement = prepare(connection, sql(connection).health())) {
                statement.executeQuery().close();
            }
            catch (SQLException ex) {
                throw SqlErrors.explain(ex, config.tableName());
            }
            details.put("table", config.tableName());
            details.put("queryMillis", (System.nanoTime() - start) / 1_000_000);
            return new StoreHealth(true, details);
        }).exceptionally(failure -> new StoreHealth(false, Map.of("table", config.tableName(), "error",
                String.valueOf(failure.getMessage()))));
    }

    private PreparedStatement prepare(Connection connection, String statementSql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(statementSql);
        try {
            statement.setQueryTimeout(queryTimeoutSeconds);
        }
        catch (SQLException ex) {
            statement.close();
            throw ex;
        }
        return statement;
    }

    /** The statements, made once the first connection told which database this is. */
    private LockSql sql(Connection connection) throws SQLException {
        LockSql known = sql;
        if (known == null) {
            String product = connection.getMetaData().getDatabaseProductName();
            try {
                known = new LockSql(config.tableName(), LockSql.Dialect.of(product));
            }
            catch (IllegalStateException ex) {
                log.error("{}: locks cannot be taken in this database", ex.getMessage());
                throw new LockUnavailableException(Objects.requireNonNullElse(ex.getMessage(), ex.toString()), ex);
            }
            sql = known;
        }
        return known;
    }

    /** Stops the sweeps and the call threads; the data source belongs to the application and stays open. */
    @Override
    public void close() {
        sweeper.close();
        calls.close();
    }

    @Override
    public String toString() {
        return "JdbcLockStore[" + config.tableName() + "]";
    }
}
