package dev.distlock.jdbc;

import java.util.OptionalInt;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * How a name used with permits lies in the lock table, which has no column for it (so that the table users created
 * from the schema scripts (docs/how-to/jdbc.md) needs no migration):
 * <ul>
 * <li>The name's own row stays the name's token counter ({@code fencing_token}, the last token issued to any
 * holder) and says, in {@code owner_token}, that the name is held with permits and how many: the marker
 * {@code #<permits>}. No owner token can be one, since owner tokens are base64url, which has no {@code '#'}. Its
 * {@code lease_until} is at least every permit holder's lease (grants and renewals only push it later), so that a
 * marker whose lease ended has no live holder, and the row sweep never deletes the counter of a held name.</li>
 * <li>Each permit is a slot row, {@code <name>}{@value #SEPARATOR_NAME}{@code <index>} for index 0 to permits - 1,
 * holding one holder's owner token, token and lease exactly as a lock's row does. A name therefore has at most
 * permits slot rows, reused by later holders, and at most permits holders.</li>
 * </ul>
 * The separator is the control character U+001F (unit separator), which the store refuses in every lock name so
 * that no name can be another's slot row; and the slot rows must fit the 255 characters of {@code lock_name}, so a
 * name with permits is that much shorter.
 */
final class PermitRows {

    /** Between a name and the index of one of its slot rows. */
    static final char SEPARATOR = '\u001F';

    /** How the separator is written in messages and documentation. */
    static final String SEPARATOR_NAME = "U+001F";

    /** The first character of a marker; base64url owner tokens never contain it. */
    private static final char MARKER = '#';

    private PermitRows() {
    }

    /**
     * @param permits the name's permits
     * @return the {@code owner_token} of the name row of a name held with that many permits
     */
    static String marker(int permits) {
        return MARKER + Integer.toString(permits);
    }

    /**
     * @param ownerToken a name row's {@code owner_token}
     * @return the permits the marker says, or empty for a lock's owner token or a free row
     */
    static OptionalInt permitsOf(@Nullable String ownerToken) {
        if (ownerToken == null || ownerToken.isEmpty() || ownerToken.charAt(0) != MARKER) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(ownerToken, 1, ownerToken.length(), 10));
    }

    /**
     * @param name the lock name
     * @param permits the name's permits
     * @return the keys of the name's slot rows, index 0 first
     */
    static String[] slots(String name, int permits) {
        String[] slots = new String[permits];
        for (int index = 0; index < permits; index++) {
            slots[index] = name + SEPARATOR + index;
        }
        return slots;
    }

    /**
     * @param request a request
     * @return a reason why the request's name cannot be stored, or null when it can
     */
    static @Nullable String refusal(LockRequest request) {
        String name = request.name();
        if (name.indexOf(SEPARATOR) >= 0) {
            return "Lock name contains the control character " + SEPARATOR_NAME + ", which the JDBC store keeps for "
                    + "the rows of permits";
        }
        boolean permit = request.mode() instanceof LockMode.Permits;
        int longest = JdbcLockStore.MAX_NAME_LENGTH
                - (permit ? 1 + Integer.toString(request.permits() - 1).length() : 0);
        if (name.length() > longest) {
            return "Lock name longer than " + longest + " characters (the JDBC store's lock_name column"
                    + (permit ? ", less the suffix of a permit's row" : "") + "): "
                    + name.substring(0, 40) + "...";
        }
        return null;
    }

    /**
     * @param name a name given to force its release
     * @return whether an attempt could have stored it (as a lock or with some permits)
     */
    static boolean storable(String name) {
        return name.length() <= JdbcLockStore.MAX_NAME_LENGTH && name.indexOf(SEPARATOR) < 0;
    }
}
