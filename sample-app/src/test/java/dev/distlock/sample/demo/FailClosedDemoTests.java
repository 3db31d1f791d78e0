package dev.distlock.sample.demo;

import java.nio.file.Path;
import java.util.Map;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.sample.SampleApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page's fail-closed demo on a sample instance that started its own embedded Redis (on a free port), as the
 * first local instance does: while that Redis is frozen every buyer is answered 503 and nothing is sold, and once it
 * is thawed the next buyers are served without a restart.
 */
class FailClosedDemoTests {

    @TempDir
    static Path dataDir;

    private static ConfigurableApplicationContext sample;

    private static RestClient client;

    @BeforeAll
    static void startSample() {
        int redisPort = RedisServerProcess.freePort();
        // Command-line arguments, so that they override application.properties.
        sample = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
                "--spring.data.redis.port=" + redisPort, "--sample.data-dir=" + dataDir,
                "--sample.daily-report.cron=-", "--spring.main.banner-mode=off");
        assertThat(sample.getBeanProvider(RedisServerProcess.class).getIfAvailable())
                .as("the instance started its embedded Redis").isNotNull();
        client = RestClient.create(
                "http://127.0.0.1:" + ((WebServerApplicationContext) sample).getWebServer().getPort());
    }

    @AfterAll
    static void stopSample() {
        if (sample != null) {
            sample.close();
        }
    }

    @Test
    void buyersWhileRedisIsFrozenGet503AndNothingIsSoldThenTheNextOnesAreServed() {
        FailClosedResult run = client.post().uri("/api/demo/fail-closed?product=2&buyers=6").retrieve()
                .body(FailClosedResult.class);

        assertThat(run.whileFrozen()).as("every buyer while Redis was frozen").isEqualTo(Map.of("503", 6));
        assertThat(run.soldWhileFrozen()).isZero();
        assertThat(run.stockAfterFreeze()).isEqualTo(run.stockBefore());
        assertThat(run.afterThaw()).as("the buyers once Redis was back")
                .isEqualTo(Map.of("200", FailClosedRunner.BUYERS_AFTER_THAW));
        assertThat(run.stockAfter()).isEqualTo(run.stockBefore() - FailClosedRunner.BUYERS_AFTER_THAW);
        assertThat(run.frozenMillis()).as("frozen until the buyers' lock calls had timed out")
                .isGreaterThanOrEqualTo(2_000);
    }
}
