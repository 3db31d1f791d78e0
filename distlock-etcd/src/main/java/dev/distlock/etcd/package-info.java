/**
 * The etcd v3 lock store, on jetcd: {@link dev.distlock.etcd.EtcdLockStore} and its settings
 * {@link dev.distlock.etcd.EtcdLockConfig}.
 */
@NullMarked
package dev.distlock.etcd;

import org.jspecify.annotations.NullMarked;
