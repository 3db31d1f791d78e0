/**
 * Fencing at the resource: what a guarded write throws when it carries a lower fencing token than the resource
 * already saw ({@link dev.distlock.fencing.StaleTokenException}), and the current lock scope's token
 * ({@link dev.distlock.fencing.FencingTokens}). The guarded writes themselves live with their stores:
 * {@code dev.distlock.jdbc.fencing.FencedJdbc} in {@code distlock-jdbc} and
 * {@code dev.distlock.redis.fencing.FencedRedis} in {@code distlock-redis} (each module keeps packages of its own,
 * so no package is split across jars).
 */
@NullMarked
package dev.distlock.fencing;

import org.jspecify.annotations.NullMarked;
