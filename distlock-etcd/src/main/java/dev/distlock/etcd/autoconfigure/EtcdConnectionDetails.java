package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where, and as whom, the etcd lock store connects when it makes its own jetcd client (the application has no
 * {@code io.etcd.jetcd.Client} bean). Spring Boot's {@link ConnectionDetails} pattern: by default the details come
 * from {@code distlock.etcd.*}; a bean of this type, declared by the application or registered by a test's service
 * connection, takes the place of those properties.
 */
public interface EtcdConnectionDetails extends ConnectionDetails {

    /**
     * @return the etcd client URLs, {@code http(s)://host:port}, at least one
     */
    List<String> getEndpoints();

    /**
     * @return the etcd user to authenticate as, or {@code null} without authentication
     */
    default @Nullable String getUsername() {
        return null;
    }

    /**
     * @return that user's password, or {@code null}
     */
    default @Nullable String getPassword() {
        return null;
    }
}
