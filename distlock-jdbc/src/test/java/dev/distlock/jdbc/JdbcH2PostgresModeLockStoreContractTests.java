package dev.distlock.jdbc;

/**
 * The store contract on H2 in PostgreSQL compatibility mode with lower-case identifiers, as the sample application
 * runs it.
 */
class JdbcH2PostgresModeLockStoreContractTests extends JdbcH2LockStoreContractTests {

    @Override
    String mode() {
        return ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
    }
}
