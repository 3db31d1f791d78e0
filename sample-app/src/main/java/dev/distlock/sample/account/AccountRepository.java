package dev.distlock.sample.account;

import java.util.List;
import java.util.Optional;

import dev.distlock.jdbc.fencing.FencedJdbc;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code account} table, through Spring's {@link JdbcClient}, and distlock's {@link FencedJdbc} for the fencing
 * tokens (column {@code last_fence}); plain SQL for PostgreSQL and H2 alike.
 */
@Repository
public class AccountRepository {

    private final JdbcClient jdbc;

    private final FencedJdbc fenced;

    /**
     * @param jdbc the JDBC client
     * @param template the JDBC template behind it, for the guarded writes
     */
    public AccountRepository(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.fenced = FencedJdbc.of(template).withColumn("last_fence");
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
     * Writes the token of the caller's lock on the account to its row, unless a holder with a higher token already
     * did (the update also locks the row until the transaction ends).
     *
     * @param id the account id
     * @param fencingToken the token of the caller's lock on this account
     * @return false when the account does not exist
     * @throws dev.distlock.fencing.StaleTokenException when a higher token was already written (nothing changed)
     */
    public boolean claim(long id, long fencingToken) {
        return fenced.claim(fencingToken, "account", "id = ?", id) == 1;
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
