package dev.distlock.jdbc;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.fencing.FencingTokens;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.jdbc.fencing.FencedJdbc;
import dev.distlock.test.InMemoryLockService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guarded row updates on real databases (H2, and PostgreSQL and MariaDB where the machine has them): a row keeps the highest
 * fencing token that wrote it, an equal token writes again, a lower one changes nothing and throws, a missing row is
 * told apart from a stale token, and the token comes from the lock scope when none is passed. The column is added
 * with {@link FencedJdbc#addColumnSql}, as the how-to says.
 */
class FencedJdbcTests {

    private static final String TABLE = "fenced_account";

    private TestDatabase database;

    private JdbcTemplate jdbc;

    private FencedJdbc fenced;

    private void open(String name) throws Exception {
        database = TestDatabase.of(name);
        HikariDataSource pool = database.pool(2);
        jdbc = new JdbcTemplate(pool);
        database.update("DROP TABLE IF EXISTS " + TABLE);
        database.update("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(40))");
        fenced = FencedJdbc.of(pool);
        jdbc.execute(fenced.addColumnSql(TABLE));
        jdbc.update("INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100), (2, 100)");
    }

    @AfterEach
    void close() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aRowKeepsTheHighestTokenAndALowerOneChangesNothing(String db) throws Exception {
        open(db);
        assertThat(fenced.update(5, TABLE, "balance = ?", "id = ?", 90, 1)).isEqualTo(1);
        assertThat(fenced.update(5, TABLE, "balance = ?", "id = ?", 80, 1)).as("the same holder again").isEqualTo(1);
        assertThat(fenced.update(7, TABLE, "balance = ?", "id = ?", 70, 1)).isEqualTo(1);

        assertThatThrownBy(() -> fenced.update(6, TABLE, "balance = ?", "id = ?", 1, 1))
                .isInstanceOfSatisfying(StaleTokenException.class, stale -> {
                    assertThat(stale.token()).isEqualTo(6);
                    assertThat(stale.seenToken()).hasValue(7);
                    assertThat(stale.resource()).contains(TABLE).contains("id = ?").contains("[1]");
                    assertThat(stale).hasMessageContaining("Stale fencing token 6").hasMessageContaining(TABLE)
                            .hasMessageContaining("changed nothing");
                });
        assertThat(row(1)).containsEntry("BALANCE", 70L).containsEntry("FENCE", 7L);
        assertThat(row(2)).as("another row is not touched").containsEntry("FENCE", null);
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aMissingRowIsZeroRowsNotAStaleToken(String db) throws Exception {
        open(db);
        fenced.update(9, TABLE, "balance = ?", "id = ?", 1, 1);
        assertThat(fenced.update(3, TABLE, "balance = ?", "id = ?", 1, 42)).isZero();
        assertThat(fenced.claim(3, TABLE, "id = ?", 42)).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aClaimWritesTheTokenAloneAndIsRefusedBelowANewerHolder(String db) throws Exception {
        open(db);
        assertThat(fenced.claim(11, TABLE, "id = ?", 2)).isEqualTo(1);
        assertThat(row(2)).containsEntry("BALANCE", 100L).containsEntry("FENCE", 11L);
        assertThatThrownBy(() -> fenced.claim(10, TABLE, "id = ?", 2)).isInstanceOf(StaleTokenException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void theTokenComesFromTheLockScope(String db) throws Exception {
        open(db);
        InMemoryLockService locks = new InMemoryLockService();
        long token = locks.executeWithLock("account:1", () -> {
            fenced.update(TABLE, "balance = balance - ?", "id = ?", 10, 1);
            return FencingTokens.current();
        });
        assertThat(row(1)).containsEntry("BALANCE", 90L).containsEntry("FENCE", token);

        assertThatIllegalStateException().isThrownBy(() -> fenced.update(TABLE, "balance = ?", "id = ?", 1, 1))
                .withMessageContaining("No lock scope").withMessageContaining("@DistributedLock")
                .withMessageContaining("LockHandle.fencingToken()");
        assertThat(row(1)).containsEntry("BALANCE", 90L);
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void aRepositoryStyleStatementIsJudgedByCheck(String db) throws Exception {
        open(db);
        // What a @Modifying @Query method runs: the token in the set clause and the guard in the where clause.
        JdbcClient client = JdbcClient.create(jdbc);
        String sql = "UPDATE " + TABLE + " SET balance = :balance, fence = :fence WHERE id = :id"
                + " AND (fence IS NULL OR fence <= :fence)";
        int rows = client.sql(sql).params(Map.of("balance", 50, "fence", 20L, "id", 1)).update();
        assertThat(fenced.check(rows, 20, TABLE, "id = ?", 1)).isEqualTo(1);

        int refused = client.sql(sql).params(Map.of("balance", 1, "fence", 19L, "id", 1)).update();
        assertThatThrownBy(() -> fenced.check(refused, 19, TABLE, "id = ?", 1))
                .isInstanceOfSatisfying(StaleTokenException.class,
                        stale -> assertThat(stale.seenToken()).hasValue(20));
        int missing = client.sql(sql).params(Map.of("balance", 1, "fence", 21L, "id", 42)).update();
        assertThat(fenced.check(missing, 21, TABLE, "id = ?", 42)).isZero();
        assertThat(row(1)).containsEntry("BALANCE", 50L);
        assertThat(fenced.guard()).isEqualTo("(fence IS NULL OR fence <= ?)");
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.POSTGRESQL, TestDatabase.MARIADB })
    void anotherColumnAndQuotedQuestionMarks(String db) throws Exception {
        open(db);
        FencedJdbc lastFence = fenced.withColumn("last_fence");
        jdbc.execute(lastFence.addColumnSql(TABLE));
        // The '?' inside the literal is no parameter, as the JDBC driver counts.
        assertThat(lastFence.update(3, TABLE, "note = 'why?', balance = ?", "id = ?", 5, 1)).isEqualTo(1);
        assertThat(row(1)).containsEntry("NOTE", "why?").containsEntry("LAST_FENCE", 3L).containsEntry("FENCE",
                null);
        assertThatThrownBy(() -> lastFence.update(2, TABLE, "balance = ?", "id = ?", 1, 1))
                .isInstanceOf(StaleTokenException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2 })
    void mistakesInTheCallAreToldBeforeAnyStatement(String db) throws Exception {
        open(db);
        assertThatIllegalArgumentException().isThrownBy(() -> fenced.update(1, TABLE, "balance = ?", "id = ?", 1))
                .withMessageContaining("2 parameters, but 1 arguments");
        assertThatIllegalArgumentException().isThrownBy(() -> fenced.update(1, TABLE + "; DROP", "", "id = ?", 1))
                .withMessageContaining("not a table name");
        assertThatIllegalArgumentException().isThrownBy(() -> fenced.withColumn("fence = 0, balance"))
                .withMessageContaining("not a column name");
        assertThatIllegalArgumentException().isThrownBy(() -> fenced.claim(1, TABLE, " "))
                .withMessageContaining("where clause");
        assertThat(row(1)).containsEntry("BALANCE", 100L).containsEntry("FENCE", null);
    }

    /** @return the row's columns by upper-case name (PostgreSQL answers lower-case names, H2 upper-case) */
    private Map<String, Object> row(long id) {
        Map<String, Object> row = new HashMap<>();
        jdbc.queryForMap("SELECT * FROM " + TABLE + " WHERE id = ?", id)
                .forEach((column, value) -> row.put(column.toUpperCase(Locale.ROOT), value));
        return row;
    }
}
