package dev.distlock.jdbc;

import java.io.IOException;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the JDBC store, as AOT processing collects them from {@code META-INF/spring/aot.factories}
 * (so a missing or misspelled entry fails here too).
 */
class JdbcLockStoreRuntimeHintsTests {

    private final RuntimeHints hints = hintsFromAotFactories();

    @Test
    void everySchemaScriptIsAResource() throws IOException {
        Resource[] scripts = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:dev/distlock/jdbc/schema-*.sql");
        assertThat(scripts).extracting(Resource::getFilename).contains("schema-h2.sql", "schema-postgresql.sql",
                "schema-mysql.sql");
        assertThat(scripts).allSatisfy(script -> assertThat(RuntimeHintsPredicates.resource()
                .forResource("dev/distlock/jdbc/" + script.getFilename())).accepts(hints));
    }

    @Test
    void hikariEvictionIsInvocable() {
        assertThat(JdbcLockStoreRuntimeHints.HIKARI_DATA_SOURCE).isEqualTo(HikariDataSource.class.getName());
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(HikariDataSource.class, "evictConnection"))
                .accepts(hints);
    }

    private static RuntimeHints hintsFromAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = JdbcLockStoreRuntimeHintsTests.class.getClassLoader();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
                .load(RuntimeHintsRegistrar.class).forEach(registrar -> registrar.registerHints(hints, classLoader));
        return hints;
    }
}
