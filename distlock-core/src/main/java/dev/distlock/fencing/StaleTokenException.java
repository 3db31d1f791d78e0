package dev.distlock.fencing;

import java.util.List;
import java.util.OptionalLong;

import dev.distlock.LockException;
import org.jspecify.annotations.Nullable;

/**
 * A guarded write carried a fencing token below the one the resource already saw, and changed nothing.
 * <p>
 * The writer's lock was lost (a long pause, a partition, a lease that ran out) and a newer holder, with a higher
 * token, has written the resource since. Retrying the same write with the same token is refused again: the caller
 * must take the lock anew (and read what the newer holder wrote) before it writes.
 */
public class StaleTokenException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String resource;

    private final long token;

    private final @Nullable Long seenToken;

    /**
     * @param resource the resource written, as the caller names it (a table and row, a key)
     * @param token the fencing token the write carried
     * @param seenToken the highest token the resource had seen, or {@code null} when it was not read
     */
    public StaleTokenException(String resource, long token, @Nullable Long seenToken) {
        super(message(resource, token, seenToken), List.of(), null, null, null);
        this.resource = resource;
        this.token = token;
        this.seenToken = seenToken;
    }

    private static String message(String resource, long token, @Nullable Long seenToken) {
        String seen = (seenToken != null) ? "token " + seenToken : "a higher token";
        return "Stale fencing token " + token + " for " + resource + ": it already saw " + seen
                + " from a newer lock holder, so the write changed nothing (this caller's lock was lost; take it "
                + "again before writing)";
    }

    /** @return the resource written, as the caller named it (a table and row, a key) */
    public String resource() {
        return resource;
    }

    /** @return the fencing token the refused write carried */
    public long token() {
        return token;
    }

    /** @return the highest token the resource had seen when the write was refused, where it was read */
    public OptionalLong seenToken() {
        return (seenToken != null) ? OptionalLong.of(seenToken) : OptionalLong.empty();
    }
}
