/** Spring Boot auto-configuration of the Memcached lock store ({@code distlock.store=memcached}). */
@NullMarked
package dev.distlock.memcached.autoconfigure;

import org.jspecify.annotations.NullMarked;
