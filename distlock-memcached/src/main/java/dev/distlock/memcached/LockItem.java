package dev.distlock.memcached;

import org.jspecify.annotations.Nullable;

/**
 * A name's item, {@code token|leaseEndMicros|owner|holder}: the fencing token, the lease's end by the writer's token
 * clock (what frees the name, {@link MemcachedLockStore#CLOCK_SKEW_MICROS} later; the item's expiry only cleans up),
 * the owner token and the holder's instance id (last: any character). A free item (owner {@code -}, never an owner
 * token) keeps the floor of the next token.
 */
record LockItem(long token, long leaseEndMicros, String owner, String holder) {

    static LockItem free(long floor) {
        return new LockItem(floor, 0, "-", "");
    }

    boolean isFree() {
        return "-".equals(owner);
    }

    String encode() {
        return token + "|" + leaseEndMicros + "|" + owner + "|" + holder;
    }

    /** @param value an item's value, or null @return the item; null for none or a value of another kind */
    static @Nullable LockItem decode(@Nullable String value) {
        String[] fields = value == null ? new String[0] : value.split("\\|", 4);
        try {
            return fields.length < 4 ? null
                    : new LockItem(Long.parseLong(fields[0]), Long.parseLong(fields[1]), fields[2], fields[3]);
        }
        catch (NumberFormatException ex) {
            return null;
        }
    }
}
