package dev.distlock.sample.stock;

import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code product} table, through Spring's {@link JdbcClient}. Plain SQL that runs unchanged on PostgreSQL and
 * on H2 in PostgreSQL mode.
 */
@Repository
public class ProductRepository {

    private final JdbcClient jdbc;

    /**
     * @param jdbc the JDBC client
     */
    public ProductRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
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
     * Records that the holder of {@code fencingToken} is writing the product, unless a holder with a higher token
     * already did. The update also locks the row until the transaction ends, so a newer holder's transaction
     * waits for this one and then reads what it wrote.
     *
     * @param id the product id
     * @param fencingToken the caller's fencing token
     * @return false when the product does not exist or a higher token was already written
     */
    public boolean claim(long id, long fencingToken) {
        return jdbc.sql("UPDATE product SET last_fence = :fence WHERE id = :id AND last_fence <= :fence")
                .param("id", id)
                .param("fence", fencingToken)
                .update() == 1;
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
