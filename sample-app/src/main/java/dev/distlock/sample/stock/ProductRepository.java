package dev.distlock.sample.stock;

import java.util.List;
import java.util.Optional;

import dev.distlock.jdbc.fencing.FencedJdbc;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code product} table, through Spring's {@link JdbcClient}, and distlock's {@link FencedJdbc} for the fencing
 * token (column {@code last_fence}). Plain SQL that runs unchanged on PostgreSQL and on H2 in PostgreSQL mode.
 */
@Repository
public class ProductRepository {

    private final JdbcClient jdbc;

    private final FencedJdbc fenced;

    /**
     * @param jdbc the JDBC client
     * @param template the JDBC template behind it, for the guarded writes
     */
    public ProductRepository(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.fenced = FencedJdbc.of(template).withColumn("last_fence");
    }

    /**
     * @param id the product id
     * @return the product, if it exists
     */
    public Optional<Product> find(long id) {
        return jdbc.sql("SELECT id, name, stock FROM product WHERE id = :id")
                .param("id", id)
                .query(Product.class)
                .optional();
    }

    /** @return every product, by id */
    public List<Product> findAll() {
        return jdbc.sql("SELECT id, name, stock FROM product ORDER BY id").query(Product.class).list();
    }

    /**
     * Writes the current lock scope's fencing token to the product row, unless a holder with a higher token already
     * did. The update also locks the row until the transaction ends, so a newer holder's transaction waits for this
     * one and then reads what it wrote.
     *
     * @param id the product id
     * @return false when the product does not exist
     * @throws dev.distlock.fencing.StaleTokenException when a higher token was already written (nothing changed)
     */
    public boolean claim(long id) {
        return fenced.claim("product", "id = ?", id) == 1;
    }

    /**
     * Overwrites the stock with the value the caller computed (a read-check-update; without the lock around it,
     * concurrent callers overwrite each other's deductions and the product oversells).
     *
     * @param id the product id
     * @param stock the new stock
     * @return false when the product does not exist
     */
    public boolean writeStock(long id, int stock) {
        return jdbc.sql("UPDATE product SET stock = :stock WHERE id = :id")
                .param("id", id)
                .param("stock", stock)
                .update() == 1;
    }

    /**
     * @param id the product id
     * @return the highest fencing token written for the product, if it exists
     */
    public Optional<Long> lastFence(long id) {
        return jdbc.sql("SELECT last_fence FROM product WHERE id = :id").param("id", id).query(Long.class).optional();
    }
}
