/**
 * Auto-configuration of {@link dev.distlock.integration.DistlockLockRegistry} for Spring Boot applications.
 */
@NullMarked
package dev.distlock.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
