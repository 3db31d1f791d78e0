/**
 * Spring Boot auto-configuration of the etcd lock store: {@link dev.distlock.etcd.EtcdLockStore} on the
 * application's jetcd client, or on one of its own that connects where the
 * {@link dev.distlock.etcd.autoconfigure.EtcdConnectionDetails} say. Registered as the {@code etcd} store by
 * {@link dev.distlock.etcd.autoconfigure.EtcdLockStoreRegistration}.
 */
@NullMarked
package dev.distlock.etcd.autoconfigure;

import org.jspecify.annotations.NullMarked;
