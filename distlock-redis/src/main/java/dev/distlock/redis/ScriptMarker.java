package dev.distlock.redis;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;

/**
 * The one-byte markers the Lua scripts take as arguments, each with its byte on the wire. The scripts name the same
 * bytes in constants at their top; the bytes are part of the wire format that nodes of different versions share, so
 * they never change.
 */
enum ScriptMarker {

    /** {@code acquire.lua} ARGV[4]: the request's first attempt. */
    FIRST('0'),

    /** {@code acquire.lua} ARGV[4]: the request was refused before and may be queued as a waiter. */
    RETRY('1'),

    /**
     * {@code acquire.lua} ARGV[4]: confirms a hand-over to the request; granted only while the lock is handed to the
     * request (or already held by it), never anew.
     */
    CONFIRM('h'),

    /** The mode of {@code acquire.lua}, {@code release.lua} and {@code renew.lua}: an exclusive lock. */
    EXCLUSIVE('w'),

    /** The mode of the scripts: a shared (read) lock. */
    SHARED('r'),

    /** The mode of the scripts: one of several permits of a name. */
    PERMIT('p'),

    /** {@code release.lua} ARGV[5]: the request gave up; undo whatever it holds or registered. */
    CANCEL('c'),

    /** {@code release.lua} ARGV[5]: an operator's force release, whoever holds the lock. */
    FORCE('f'),

    /**
     * {@code acquire.lua} ARGV[7], on a Redlock master only: its caller is a quorum, which polls instead of queueing;
     * a refusal flags the holder, so that its release publishes the name and the pollers try at once.
     */
    POLLED('1');

    private final byte[] wire;

    ScriptMarker(char wire) {
        this.wire = new byte[] { (byte) wire };
    }

    /** @return the argument as sent (a copy is not needed: scripts never see the array) */
    byte[] wire() {
        return wire;
    }

    /** @return {@link #RETRY} for a request this store refused before, else {@link #FIRST} */
    static ScriptMarker attempt(boolean refusedBefore) {
        return refusedBefore ? RETRY : FIRST;
    }

    /** @return the script's marker of the request's mode */
    static ScriptMarker mode(LockRequest request) {
        LockMode mode = request.mode();
        return mode instanceof LockMode.Permits ? PERMIT : mode instanceof LockMode.Shared ? SHARED : EXCLUSIVE;
    }
}
