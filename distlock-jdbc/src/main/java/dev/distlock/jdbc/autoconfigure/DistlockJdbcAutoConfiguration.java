package dev.distlock.jdbc.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
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
@AutoConfiguration(after = DataSourceAutoConfiguration.class, before = DistlockAutoConfiguration.class)
@ConditionalOnClass({ JdbcLockStore.class, JdbcTemplate.class })
@ConditionalOnLockStore(JdbcLockStoreRegistration.ID)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties({ DistlockProperties.class, JdbcLockStoreProperties.class })
public final class DistlockJdbcAutoConfiguration {

    /**
     * @param properties the {@code distlock.*} settings
     * @param jdbc the {@code distlock.jdbc.*} settings
     * @return the store settings, validated (a bad table name fails start-up naming the property)
     */
    @Bean
    @ConditionalOnMissingBean
    JdbcLockConfig distlockJdbcLockConfig(DistlockProperties properties, JdbcLockStoreProperties jdbc) {
        return new JdbcLockConfig(jdbc.tableName(), properties.commandTimeout());
    }

    /**
     * @param dataSource the application's data source
     * @param config the store settings
     * @return the store; created after the lock table (the initializer is a dependency)
     */
    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    JdbcLockStore distlockJdbcLockStore(DataSource dataSource, JdbcLockConfig config,
            JdbcLockSchemaInitializer distlockJdbcSchemaInitializer) {
        return new JdbcLockStore(dataSource, config);
    }

    /**
     * @param dataSource the application's data source
     * @param jdbc the {@code distlock.jdbc.*} settings
     * @param config the store settings
     * @return the initializer that creates the lock table when {@code distlock.jdbc.initialize-schema} says so
     */
    @Bean
    @ConditionalOnMissingBean
    JdbcLockSchemaInitializer distlockJdbcSchemaInitializer(DataSource dataSource, JdbcLockStoreProperties jdbc,
            JdbcLockConfig config) {
        return new JdbcLockSchemaInitializer(dataSource, jdbc.initializeSchema(), config);
    }
}
