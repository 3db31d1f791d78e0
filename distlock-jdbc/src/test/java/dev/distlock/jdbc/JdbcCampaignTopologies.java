package dev.distlock.jdbc;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.test.support.campaign.CampaignTopology;

/**
 * The JDBC store's fault campaign topology {@code postgres}. Node spec: {@code jdbc|url|table}; a pool of 4 per
 * node and the campaign's 1 s command timeout.
 */
public final class JdbcCampaignTopologies implements CampaignTopology.Provider {

    @Override
    public List<String> names() {
        return List.of("postgres");
    }

    @Override
    public CampaignTopology start(String name) {
        return new PostgresTopology();
    }

    @Override
    public Optional<CampaignTopology.Opened> open(String spec) {
        String[] parts = spec.split("\\|");
        if (!"jdbc".equals(parts[0])) {
            return Optional.empty();
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(parts[1]);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(2));
        HikariDataSource pool = new HikariDataSource(config);
        return Optional.of(new CampaignTopology.Opened(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName(parts[2]).withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of(pool)));
    }
}
