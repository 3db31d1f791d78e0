package dev.distlock.etcd;

import java.util.List;
import java.util.concurrent.CompletionException;

import dev.distlock.LockUnavailableException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EtcdErrors}: a refused authentication, as jetcd reports it (a bare {@code UNAUTHENTICATED} with etcd's
 * reason in its cause), becomes a message that says so; every other error is left as it is.
 */
class EtcdErrorsTests {

    private static final EtcdLockConfig WITH_USER = EtcdLockConfig.defaults().withCredentials("locker", "s3cret");

    /** What jetcd's AuthCredential fails a call with when etcd refuses the password. */
    private static CompletionException refused() {
        StatusRuntimeException etcd = Status.INVALID_ARGUMENT
                .withDescription("etcdserver: authentication failed, invalid user ID or password").asRuntimeException();
        return new CompletionException(Status.UNAUTHENTICATED.withCause(etcd).asRuntimeException());
    }

    @Test
    void aRefusedPasswordNamesTheUserThePropertiesAndEtcdsReason() {
        Throwable explained = EtcdErrors.explain(refused(), WITH_USER, true);
        assertThat(explained).isInstanceOf(LockUnavailableException.class).hasMessage("etcd refused to authenticate "
                + "user 'locker' (distlock.etcd.username, distlock.etcd.password): etcdserver: authentication "
                + "failed, invalid user ID or password").hasMessageNotContaining("s3cret");
        assertThat(explained.getCause()).as("the original error stays the cause")
                .isInstanceOf(CompletionException.class);
    }

    @Test
    void onTheApplicationsClientThePropertiesAreNotBlamed() {
        assertThat(EtcdErrors.explain(refused(), WITH_USER, false)).hasMessageStartingWith(
                "etcd refused to authenticate the application's jetcd client: etcdserver: authentication failed");
    }

    @Test
    void otherErrorsAreLeftAlone() {
        for (Throwable error : List.of(new CompletionException(Status.PERMISSION_DENIED
                .withDescription("etcdserver: permission denied").asRuntimeException()),
                Status.UNAVAILABLE.asRuntimeException(), new IllegalStateException("closed"))) {
            assertThat(EtcdErrors.explain(error, WITH_USER, true)).isSameAs(error);
        }
    }
}
