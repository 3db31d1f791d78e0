package dev.distlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The lock was not acquired within the wait time. {@link #lockNames()}, {@link #waitTime()} and {@link #method()}
 * say which locks, how long was waited and, for {@code @DistributedLock}, which method.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and how long was waited
     */
    public LockTimeoutException(String message) {
        super(message);
    }

    /**
     * @param message which lock and how long was waited
     * @param lockNames the locks not acquired (for several at once: all that were asked for)
     * @param waitTime the wait that elapsed, or {@code null} when unknown
     * @param method the annotated method ({@code SimpleClassName.methodName}), or {@code null} for a programmatic
     *        call
     */
    public LockTimeoutException(String message, List<String> lockNames, @Nullable Duration waitTime,
            @Nullable String method) {
        super(message, lockNames, waitTime, method, null);
    }

    /**
     * {@link #heldBy(LockService, String)} for a timeout of several locks taken together: {@code "; held: '<name>'
     * by <instance id> (fencing token <n>), ..."} for those held when the wait ended, in the order given. One
     * {@link LockService#describe} call per name; the first that fails ends the look-up with what is known by then,
     * so a stalled store delays the exception by at most one {@code distlock.command-timeout}.
     *
     * @param service the service that timed out
     * @param names the locks it waited for
     * @return the note, starting with {@code "; "}, or an empty string
     */
    public static String heldBy(LockService service, List<String> names) {
        if (names.size() == 1) {
            return heldBy(service, names.get(0));
        }
        List<String> held = new ArrayList<>();
        for (String name : names) {
            try {
                service.describe(name).ifPresent(info -> held.add("'" + name + "' by " + info.holder()
                        + " (fencing token " + info.fencingToken() + ")"));
            }
            catch (RuntimeException ex) { // as above: the timeout is the news
                break;
            }
        }
        return held.isEmpty() ? "" : "; held: " + String.join(", ", held);
    }

    /**
     * What a timeout's message says about the lock's holder: {@code "; held by <instance id> (fencing token <n>)"},
     * or nothing when the lock is free by now, or the service cannot tell (no engine, the store did not answer).
     * One {@link LockService#describe} call, made after the wait ended: the store answered busy until then, so it
     * normally answers at once; a store that stalls right then delays the exception by at most
     * {@code distlock.command-timeout}, the bound of every store call.
     *
     * @param service the service that timed out
     * @param name the lock it waited for
     * @return the note, starting with {@code "; "}, or an empty string
     */
    public static String heldBy(LockService service, String name) {
        try {
            return service.describe(name).map(info -> "; held by " + info.holder() + " (fencing token "
                    + info.fencingToken() + ")").orElse("");
        }
        catch (RuntimeException ex) { // the timeout is what the caller must learn of, not a failed look-up
            return "";
        }
    }
}
