package dev.distlock.etcd.autoconfigure;

import java.util.List;

import dev.distlock.etcd.EtcdLockConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The etcd store ({@code distlock.etcd.*}). Validated by {@link EtcdLockConfig} when the store is made, with
 * messages naming the property. An empty username or password counts as not set, so that
 * {@code distlock.etcd.username=${ETCD_USER:}} turns authentication off rather than failing start-up.
 *
 * @param endpoints The etcd client URLs, http(s)://host:port, comma-separated.
 * @param username The etcd user to authenticate as; empty for no authentication.
 * @param password The password of the etcd user; needs distlock.etcd.username.
 */
@ConfigurationProperties("distlock.etcd")
public record EtcdLockStoreProperties(@DefaultValue(EtcdLockConfig.DEFAULT_ENDPOINTS) List<String> endpoints,
        @Nullable String username, @Nullable String password) {

    /**
     * Reads empty credentials as unset.
     *
     * @param endpoints the etcd client URLs
     * @param username the etcd user, or empty or {@code null} for none
     * @param password that user's password, or empty or {@code null} for none
     */
    public EtcdLockStoreProperties {
        username = (username == null || username.isEmpty()) ? null : username;
        password = (password == null || password.isEmpty()) ? null : password;
    }

    @Override
    public String toString() {
        // Never the password: this record is a bean, and beans end up in logs and failure analyses.
        return "EtcdLockStoreProperties[endpoints=" + endpoints + ", username=" + username + ", password="
                + (password == null ? "none" : "******") + "]";
    }
}
