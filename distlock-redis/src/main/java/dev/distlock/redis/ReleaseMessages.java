package dev.distlock.redis;

import java.time.Duration;
import java.util.function.Predicate;

import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;

/**
 * Reads the messages of the release channels ({@code release.lua}'s {@code PUBLISH} or {@code SPUBLISH}) and tells the engine:
 * <ul>
 * <li>"<lock name>\n<owner token of the waiter it was handed to>\n<its fencing token>\n<server clock in µs>": a
 * lock's store hand-over ({@link HandOverEvents#handedOver}, or only a wake-up of that waiter when the hand-over may
 * not be acted on before its confirmation, or an older version's message without the clock: the engine starts early
 * only on the server's clock, review 4, F6);</li>
 * <li>"<lock name>\n<owner token>": a permit's release, kept for that waiter ({@link HandOverEvents#kept});</li>
 * <li>"<lock name>\n": a Redlock master's release that nobody was queued for: every waiter of the name tries now
 * ({@link StoreEvents#released}).</li>
 * </ul>
 * Read from the end, since owner tokens and numbers never contain a newline and a name may. A store that nobody
 * started hand-overs on (a quorum's node) turns each hand-over into a wake-up of the waiters of its name.
 */
final class ReleaseMessages {

    private final StoreEvents events;

    private final HandOverEvents handOvers;

    private final Predicate<String> handOverUsable;

    private final Duration window;

    /**
     * @param events where releases go
     * @param handOvers where hand-overs go, or {@code null} when the engine did not start them
     * @param handOverUsable whether a hand-over of the named lock may be acted on before its confirmation
     * @param window how long a hand-over lasts without its confirmation
     */
    ReleaseMessages(StoreEvents events, @Nullable HandOverEvents handOvers, Predicate<String> handOverUsable,
            Duration window) {
        this.events = events;
        this.handOvers = handOvers != null ? handOvers : new HandOverEvents() {

            @Override
            public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
                    Duration ignored) {
                events.released(name, handedTo);
            }

            @Override
            public void kept(String name, String keptFor, Duration ignored) {
                events.released(name, keptFor);
            }
        };
        this.handOverUsable = handOverUsable;
        this.window = window;
    }

    /** @param body a message of the release channel, as UTF-8 text */
    void dispatch(String body) {
        int last = body.lastIndexOf('\n');
        if (last <= 0) {
            return; // the permission check's empty message
        }
        if (last == body.length() - 1) {
            events.released(body.substring(0, last), null);
            return;
        }
        int before = body.lastIndexOf('\n', last - 1);
        int token = before > 0 ? body.lastIndexOf('\n', before - 1) : -1;
        String tail = body.substring(last + 1);
        if (token > 0 && isDigits(tail) && isDigits(body.substring(before + 1, last))) {
            String name = body.substring(0, token);
            String handedTo = LuaScript.ownerToken(body.substring(token + 1, before));
            if (handOverUsable.test(name)) {
                handOvers.handedOver(name, handedTo, Long.parseLong(body.substring(before + 1, last)),
                        Long.parseLong(tail), window);
            }
            else {
                handOvers.kept(name, handedTo, window);
            }
        }
        else if (before > 0 && isDigits(tail)) {
            handOvers.kept(body.substring(0, before), LuaScript.ownerToken(body.substring(before + 1, last)), window);
        }
        else {
            handOvers.kept(body.substring(0, last), LuaScript.ownerToken(tail), window);
        }
    }

    /** A fencing token: 1 to 18 decimal digits (an owner token has 22 characters). */
    private static boolean isDigits(String text) {
        if (text.isEmpty() || text.length() > 18) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
