package dev.distlock.etcd;

import dev.distlock.LockUnavailableException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import org.jspecify.annotations.Nullable;

/**
 * Puts into words etcd's refusal of the store's credentials. jetcd reports a failed authentication as a bare gRPC
 * {@code UNAUTHENTICATED}, with etcd's reason ("authentication failed, invalid user ID or password") only in its
 * cause, so a lock call would fail saying {@code StatusRuntimeException: UNAUTHENTICATED} and nothing more.
 */
final class EtcdErrors {

    private EtcdErrors() {
    }

    /**
     * @param error what an etcd call failed with
     * @param config the store's settings, for the user name
     * @param ownClient whether the store made the client from its settings (else the application's client is used,
     *        and its credentials are not the {@code distlock.etcd.*} properties)
     * @return a {@link LockUnavailableException} that says etcd refused the credentials, names where they came from
     *         and gives etcd's reason, when that is why the call failed; otherwise the error itself
     */
    static Throwable explain(Throwable error, EtcdLockConfig config, boolean ownClient) {
        if (Status.fromThrowable(error).getCode() != Status.Code.UNAUTHENTICATED) {
            return error;
        }
        String who = !ownClient ? "the application's jetcd client"
                : config.username() != null ? "user '" + config.username()
                        + "' (distlock.etcd.username, distlock.etcd.password)"
                        : "the store's client (distlock.etcd.username is not set)";
        return new LockUnavailableException("etcd refused to authenticate " + who + ": " + reason(error), error);
    }

    /** @return etcd's own words: the description of the innermost gRPC status of the chain */
    private static String reason(Throwable error) {
        String reason = "UNAUTHENTICATED";
        for (@Nullable Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof StatusRuntimeException || cause instanceof StatusException) {
                String description = Status.fromThrowable(cause).getDescription();
                if (description != null && !description.isBlank()) {
                    reason = description;
                }
            }
        }
        return reason;
    }
}
