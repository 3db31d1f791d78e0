package dev.distlock.sample;

import java.time.Duration;

import dev.distlock.embedded.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as a developer starts and stops it, with its own embedded Redis (started by the sample's launcher on a
 * free port): the start-up log says where the page is and which store it uses, and stopping it is clean, the
 * embedded Redis stopping only after distlock has released what it held (no unconfirmed release, no client
 * reconnecting to a Redis that is gone).
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleLifecycleTests {

    @Test
    void startUpPrintsThePageAndStopReleasesLocksBeforeTheEmbeddedRedisStops(CapturedOutput output) {
        int redisPort = RedisServerProcess.freePort();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
                "--server.port=0", "--spring.main.banner-mode=off", "--spring.data.redis.port=" + redisPort,
                "--spring.datasource.url=jdbc:h2:mem:lifecycle;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                        + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                "--sample.daily-report.cron=-");
        String port = context.getEnvironment().getProperty("local.server.port");
        assertThat(output.getOut()).contains("Started an embedded Redis on 127.0.0.1:" + redisPort)
                .contains("Sample page: http://localhost:" + port + "/ (lock store: redis, RedisLockStore[");
        // Held at shutdown: the leadership of order-consumer (distlock.leader.groups), a lease in Redis.
        await().atMost(Duration.ofSeconds(20)).until(() -> output.getOut().contains("leads 'order-consumer'"));
        int beforeClose = output.getOut().length();

        context.close();

        String shutdown = output.getOut().substring(beforeClose);
        assertThat(shutdown).contains("gives up the leadership of 'order-consumer'").contains("Stopping the embedded Redis on 127.0.0.1:" + redisPort)
                .doesNotContain("not confirmed").doesNotContain("Cannot reconnect")
                .doesNotContainPattern("(?m)^\\S+\\s+(WARN|ERROR) ");
        assertThat(RedisServerProcess.isListening(redisPort)).isFalse();
    }
}
