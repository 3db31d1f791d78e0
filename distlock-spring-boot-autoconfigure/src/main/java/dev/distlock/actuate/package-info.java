/**
 * Spring Boot Actuator integration of distlock: the {@code distlock} endpoint listing held locks, and the
 * {@code distlock} health contributor (Redis reachable and watchdog renewing on time).
 */
package dev.distlock.actuate;
