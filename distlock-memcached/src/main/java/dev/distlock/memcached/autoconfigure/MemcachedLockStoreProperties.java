package dev.distlock.memcached.autoconfigure;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The Memcached store ({@code distlock.memcached.*}), validated when the store is made; every call is bounded by
 * {@code distlock.command-timeout}.
 *
 * @param servers Memcached servers, host:port, comma-separated; each lock name lives on one of them.
 * @param allowEvictions Whether to start against a server that may evict items under memory pressure (which frees a
 *        held lock), with a WARN; false refuses it: run Memcached with -M.
 */
@ConfigurationProperties("distlock.memcached")
public record MemcachedLockStoreProperties(@DefaultValue("localhost:11211") List<String> servers,
        @DefaultValue("false") boolean allowEvictions) {
}
