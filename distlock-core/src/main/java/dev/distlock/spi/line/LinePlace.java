package dev.distlock.spi.line;

import java.util.Objects;

import dev.distlock.spi.LockMode;

/**
 * One entry of a line as the server listed it: what {@link LinePosition} reads.
 *
 * @param <K> how the store names an entry in a listing (a node's name, a key)
 * @param id the entry's name in the listing
 * @param order the number the server gave its creation: the line is sorted by it (see the package's duties)
 * @param mode how the entry's request holds the name, as its node's or key's name says (a lock made by another
 *        client, e.g. a Curator lock on the same path, is {@link LockMode.Exclusive})
 */
public record LinePlace<K>(K id, long order, LockMode mode) {

    /** Checks the values. */
    public LinePlace {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(mode, "mode");
    }

    /** @return the permits the entry asks for: its number for permits, 1 for a lock of any type */
    public int permits() {
        return mode instanceof LockMode.Permits permits ? permits.n() : 1;
    }

    /** @return whether the entry is a reader's */
    public boolean shared() {
        return mode instanceof LockMode.Shared;
    }
}
