/**
 * Extension points of the lock engine: event callbacks for metrics and tracing, and a read-only view of the locks
 * this instance holds for the actuator endpoint and health.
 */
package dev.distlock.spi;
