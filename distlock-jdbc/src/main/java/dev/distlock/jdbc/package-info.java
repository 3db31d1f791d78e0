/**
 * The relational-database lock store: {@link dev.distlock.jdbc.JdbcLockStore} keeps one row per lock name in one
 * table and judges every lease by the database clock; {@link dev.distlock.jdbc.JdbcLockSchemaInitializer} creates
 * that table from the scripts of this package ({@code schema-h2.sql}, {@code schema-postgresql.sql},
 * {@code schema-mysql.sql}).
 */
@NullMarked
package dev.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
