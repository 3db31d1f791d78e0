package dev.distlock.memcached.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the Memcached lock store connects, Spring Boot's {@link ConnectionDetails}: by default
 * {@code distlock.memcached.servers}; a bean of this type (the application's, a test's service connection) replaces it.
 */
public interface MemcachedConnectionDetails extends ConnectionDetails {

    /** @return {@code host:port} of each Memcached server, at least one */
    List<String> getServers();
}
