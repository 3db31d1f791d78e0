package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * {@link EtcdConnectionDetails} from {@code distlock.etcd.endpoints}, {@code distlock.etcd.username} and
 * {@code distlock.etcd.password}: the default, when the application declares none of its own.
 */
final class PropertiesEtcdConnectionDetails implements EtcdConnectionDetails {

    private final EtcdLockStoreProperties properties;

    PropertiesEtcdConnectionDetails(EtcdLockStoreProperties properties) {
        this.properties = properties;
    }

    @Override
    public List<String> getEndpoints() {
        return this.properties.endpoints();
    }

    @Override
    public @Nullable String getUsername() {
        return this.properties.username();
    }

    @Override
    public @Nullable String getPassword() {
        return this.properties.password();
    }
}
