package dev.distlock.jdbc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.sql.DataSource;

import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relational-database {@link LockStore}: one row per lock name in one table, on the application's
 * {@link DataSource}, kept by the record template ({@link RowTemplate}) in the database's dialect ({@link RowDialect}:
 * PostgreSQL, MySQL and MariaDB, H2). This class answers the store SPI on its call threads.
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

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    /** Lock-name order: two batches that touch a common row lock their rows in the same order (no deadlock). */
    private static final Comparator<Lease> ROW_ORDER = Comparator.comparing((Lease lease) -> lease.request().name())
            .thenComparing(lease -> lease.request().ownerToken());

    private final DataSource dataSource;

    private final JdbcLockConfig config;

    private final RowTemplate rows;

    private final ConnectionCalls calls;

    private final RowSweeper sweeper;

    /**
     * @param dataSource the application's data source; each call takes a connection for itself and returns it
     * @param config the settings
     */
    public JdbcLockStore(DataSource dataSource, JdbcLockConfig config) {
        this.dataSource = dataSource;
        this.config = config;
        this.rows = new RowTemplate(config);
        this.calls = new ConnectionCalls(dataSource, config.commandTimeout());
        this.sweeper = new RowSweeper(this::deleteExpiredRows, config.rowRetention());
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
        return calls.run("delete expired lock rows",
                connection -> rows.deleteExpired(connection, retentionMillis, batch));
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
        return calls.submit("acquire lock '" + request.name() + "'", connection -> rows.acquire(connection, request))
                .thenCompose(outcome -> RowAcquires.answer(outcome, request, waiting));
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
                connection -> rows.release(connection, request, 0)).thenApply(released -> null);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        return calls.submit("release lock '" + request.name() + "'",
                connection -> rows.release(connection, request, lease.fencingToken()) == 1
                        ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED);
    }

    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        if (!PermitRows.storable(name)) {
            return CompletableFuture.completedFuture(false); // a name no attempt could have stored
        }
        return calls.submit("force the release of lock '" + name + "'",
                connection -> rows.forceRelease(connection, name));
    }

    /** The name's live row, or its live permit whose lease ends last; JDBC keeps no line: no waiters. */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        if (!PermitRows.storable(name)) {
            return CompletableFuture.completedFuture(Optional.empty()); // a name no attempt could have stored
        }
        return calls.submit("describe lock '" + name + "'", connection -> rows.describe(connection, name));
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        List<Lease> ordered = new ArrayList<>(leases);
        ordered.sort(ROW_ORDER);
        return calls.submit("renew " + leases.size() + " leases", connection -> {
            int[] counts = rows.renew(connection, ordered);
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

    /** Up when the lock table answers a query; down (with the reason) when the database fails. */
    @Override
    public CompletionStage<StoreHealth> health() {
        long start = System.nanoTime();
        return calls.submit("answer", connection -> {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("database", connection.getMetaData().getDatabaseProductName() + " "
                    + connection.getMetaData().getDatabaseProductVersion());
            rows.check(connection);
            details.put("table", config.tableName());
            details.put("queryMillis", (System.nanoTime() - start) / 1_000_000);
            return new StoreHealth(true, details);
        }).exceptionally(failure -> new StoreHealth(false, Map.of("table", config.tableName(), "error",
                String.valueOf(failure.getMessage()))));
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
