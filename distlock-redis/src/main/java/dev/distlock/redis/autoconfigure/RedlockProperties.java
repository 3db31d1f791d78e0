package dev.distlock.redis.autoconfigure;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Quorum locking over independent Redis masters ({@code distlock.redlock.*}).
 *
 * @param nodes Redis URIs (redis://[user:password@]host:port) of independent masters. When set (at least 3), locks
 *        are taken by quorum over them instead of spring.data.redis.*.
 */
@ConfigurationProperties("distlock.redlock")
public record RedlockProperties(@DefaultValue List<String> nodes) {
}
