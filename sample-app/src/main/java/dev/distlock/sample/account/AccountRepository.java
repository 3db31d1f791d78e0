package dev.distlock.sample.account;

import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code account} table, through Spring's {@link JdbcClient}; plain SQL for PostgreSQL and H2 alike.
 */
@Repository
public class AccountRepository {

    private final JdbcClient jdbc;

    /**
     * @param jdbc the JDBC client
     */
    public AccountRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @param id the account id
     * @return the account, if it exists
     */
    public Optional<Account> find(long id) {
        return jdbc.sql("SELECT id, owner, balance FROM account WHERE id = :id").param("id", id).query(Account.class)
                .optional();
    }

    /** @return every account, by id */
    public List<Account> findAll() {
        return jdbc.sql("SELECT id, owner, balance FROM account ORDER BY id").query(Account.class).list();
    }

    /**
     * Records that the holder of {@code fencingToken} writes the account, unless a holder with a higher token already
     * did (the update also locks the row until the transaction ends).
     *
     * @param id the account id
     * @param fencingToken the token of the caller's lock on this account
     * @return false when the account does not exist or a higher token was already written
     */
    public boolean claim(long id, long fencingToken) {
        return jdbc.sql("UPDATE account SET last_fence = :fence WHERE id = :id AND last_fence <= :fence")
                .param("id", id).param("fence", fencingToken).update() == 1;
    }

    /**
     * Overwrites the balance with the value the caller computed (a read-check-update: without the lock around it,
     * concurrent transfers overwrite each other and money appears or vanishes).
     *
     * @param id the account id
     * @param balance the new balance
     * @return false when the account does not exist
     */
    public boolean writeBalance(long id, long balance) {
        return jdbc.sql("UPDATE account SET balance = :balance WHERE id = :id").param("id", id)
                .param("balance", balance).update() == 1;
    }
}
