package dev.distlock.jdbc;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.test.support.campaign.CampaignTopology;

/**
 * The JDBC store's fault campaign topologies, {@code postgres} ({@link PostgresTopology}) and {@code mariadb}
 * ({@link MariaDbTopology}). Node spec: {@code jdbc|url|table}, whichever the database (the URL picks the driver);
 * a pool of 4 per node and the campaign's 1 s command timeout.
 */
public final class JdbcCampaignTopologies implements CampaignTopology.Provider {

    /** For {@link java.util.ServiceLoader}. */
    public JdbcCampaignTopologies() {
    }

    @Override
    public List<String> names() {
        return List.of("postgres", "mariadb");
    }

    @Override
    public CampaignTopology start(String name) {
        return switch (name) {
            case "postgres" -> new PostgresTopology();
            case "mariadb" -> new MariaDbTopology();
            default -> throw new IllegalArgumentException("No JDBC campaign topology '" + name + "'");
        };
    }

    @Override
    public Optional<CampaignTopology.Opened> open(String spec) {
        String[] fields = spec.split("\\|");
        if (!"jdbc".equals(fields[0])) {
            return Optional.empty();
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(fields[1]);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(2));
        HikariDataSource pool = new HikariDataSource(config);
        return Optional.of(new CampaignTopology.Opened(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                .withTableName(fields[2]).withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of(pool)));
    }
}
