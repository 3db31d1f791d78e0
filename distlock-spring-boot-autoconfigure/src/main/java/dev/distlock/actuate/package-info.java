/**
 * Spring Boot Actuator integration of distlock: the {@code distlock} endpoint listing held locks, and the
 * {@code distlock} health contributor (lock store reachable and watchdog renewing on time).
 */
@NullMarked
package dev.distlock.actuate;

import org.jspecify.annotations.NullMarked;
