package dev.distlock.sample.demo;

/**
 * The lock store this instance uses, for the sample page and its start-up log line.
 *
 * @param id the value of {@code distlock.store}: {@code redis}, {@code jdbc}, {@code zookeeper} or {@code etcd}
 * @param description the store itself, e.g. {@code RedisLockStore[distlock]}; {@code none} when
 *        {@code distlock.enabled=false}
 */
public record StoreInfo(String id, String description) {
}
