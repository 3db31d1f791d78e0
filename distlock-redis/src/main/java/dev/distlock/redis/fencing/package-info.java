/**
 * Guarded writes for Redis: {@link dev.distlock.redis.fencing.FencedRedis} keeps each value with the highest fencing
 * token that wrote it and refuses a write with a lower one, in one script. Works whatever lock store hands out the
 * tokens.
 */
@NullMarked
package dev.distlock.redis.fencing;

import org.jspecify.annotations.NullMarked;
