/**
 * Guarded writes for relational databases: {@link dev.distlock.jdbc.fencing.FencedJdbc} makes a row keep the
 * highest fencing token that wrote it and refuses a write with a lower one. Works with any {@code DataSource}, whatever
 * lock store hands out the tokens.
 */
@NullMarked
package dev.distlock.jdbc.fencing;

import org.jspecify.annotations.NullMarked;
