package dev.distlock.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.util.ClassUtils;

/**
 * Tells Redis' own error replies apart from transport failures, by message and by the clients' exception types
 * (without loading a client that is not on the class path).
 */
final class RedisErrors {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisCommandExecutionException",
            RedisErrors.class.getClassLoader());

    private RedisErrors() {
    }

    /** @return whether Redis answered with an error (so the connection works), rather than not at all */
    static boolean isServerReply(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (LETTUCE_PRESENT && t instanceof io.lettuce.core.RedisCommandExecutionException) {
                return true;
            }
        }
        return false;
    }

    /** @return whether Redis refused a write because the node is a replica (a master that was demoted) */
    static boolean isReadOnly(Throwable failure) {
        return hasMessage(failure, "READONLY");
    }

    /** @return whether the failure (or one of its causes) carries the error code */
    static boolean hasMessage(Throwable failure, String code) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains(code)) {
                return true;
            }
        }
        return false;
    }

    /** The error reply of {@code acquire.lua} to a request with other permits than the name's holders'. */
    private static final Pattern PERMITS_MISMATCH = Pattern.compile("DISTLOCK_PERMITS (\\d+)");

    /**
     * @return the permits the name is held with, when the failure is the acquire script's refusal of a request with
     *         other permits; -1 otherwise
     */
    static int permitsHeldWith(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            Matcher matcher = PERMITS_MISMATCH.matcher(String.valueOf(t.getMessage()));
            if (matcher.find()) {
                return Integer.parseInt(matcher.group(1));
            }
        }
        return -1;
    }
}
