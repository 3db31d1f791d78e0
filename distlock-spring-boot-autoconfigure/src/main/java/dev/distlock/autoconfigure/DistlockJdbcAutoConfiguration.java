package dev.distlock.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.jdbc.JdbcLockConfig;
import dev.distlock.jdbc.JdbcLockSchemaInitializer;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.spi.LockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The JDBC lock store on the application's {@link DataSource} ({@code spring.datasource.*}), with its table
 * ({@code distlock.jdbc.table-name}) created at start-up as {@code distlock.jdbc.initialize-schema} says. Chosen
 * when {@code distlock-jdbc} is the only store on the class path, or by {@code distlock.store=jdbc}.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({ JdbcLockStore.class, JdbcTemplate.class })
@ConditionalOnLockStore(LockStoreKind.JDBC)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockJdbcAutoConfiguration {

    /**
     * @param properties the {@code distlock.*} settings
     * @return the store settings, validated (a bad table name fails start-up naming the property)
     */
    @Bean
    @ConditionalOnMissingBean
    public JdbcLockConfig distlockJdbcLockConfig(DistlockProperties properties) {
        return new JdbcLockConfig(properties.jdbc().tableName(), properties.commandTimeout());
    }

    /**
     * @param dataSource the application's data source
     * @param config the store settings
     * @return the store; created after the lock table (the initializer is a dependency)
     */
    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    public JdbcLockStore distlockJdbcLockStore(DataSource dataSource, JdbcLockConfig config,
            JdbcLockSchemaInitializer distlockJdbcSchemaInitializer) {
        return new JdbcLockStore(dataSource, config);
    }

    /**
     * @param dataSource the application's data source
     * @param properties the {@code distlock.*} settings
     * @param config the store settings
     * @return the initializer that creates the lock table when {@code distlock.jdbc.initialize-schema} says so
     */
    @Bean
    @ConditionalOnMissingBean
    public JdbcLockSchemaInitializer distlockJdbcSchemaInitializer(DataSource dataSource,
            DistlockProperties properties, JdbcLockConfig config) {
        return new JdbcLockSchemaInitializer(dataSource, properties.jdbc().initializeSchema(), config);
    }
}
