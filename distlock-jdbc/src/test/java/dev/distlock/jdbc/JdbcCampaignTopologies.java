package dev.distlock.jdbc;

import java.util.List;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.SingleTopologyProvider;

/**
 * The JDBC store's fault campaign topology {@code postgres}. Node spec: {@code jdbc|url|table}; a pool of 4 per
 * node and the campaign's 1 s command timeout.
 */
public final class JdbcCampaignTopologies extends SingleTopologyProvider {

    /** The PostgreSQL server, for {@link java.util.ServiceLoader}. */
    public JdbcCampaignTopologies() {
        super("postgres", "jdbc", PostgresTopology::new);
    }

    @Override
    protected CampaignTopology.Opened open(String[] fields) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(fields[1]);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(2));
        HikariDataSource pool = new HikariDataSource(config);
        return new CampaignTopology.Opened(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName(fields[2]).withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of(pool));
    }
}
