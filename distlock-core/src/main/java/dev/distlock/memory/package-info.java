/**
 * A lock store in this JVM's memory ({@link dev.distlock.memory.InMemoryLockStore}): for tests and for the engine's
 * own tests, with the semantics of the real stores.
 */
@NullMarked
package dev.distlock.memory;

import org.jspecify.annotations.NullMarked;
