package dev.distlock.sample;

import dev.distlock.embedded.RedisServerProcess;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the tests that share one sample application context: a real Redis started for the test run (not the
 * sample's embedded launcher), an in-memory H2 database in PostgreSQL mode (the same SQL as production), short lock
 * timeouts so that the 503 cases are quick, and the scheduled report switched off (tests call it directly).
 * <p>
 * The Redis server is shared by every subclass, like the cached application context that points at it; the
 * JVM shutdown hook of {@link RedisServerProcess} stops it.
 */
@SpringBootTest(properties = {
        "sample.embedded-redis=false",
        "spring.datasource.url=jdbc:h2:mem:sample-${random.uuid};DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
        "distlock.wait-time=300ms",
        "distlock.command-timeout=500ms",
        "sample.daily-report.cron=-" })
public abstract class SampleAppTestSupport {

    private static RedisServerProcess redis;

    /**
     * @return the Redis server of the test context, started on first use
     */
    protected static synchronized RedisServerProcess redis() {
        if (redis == null) {
            redis = RedisServerProcess.startOnFreePort();
        }
        return redis;
    }

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> redis().host());
        registry.add("spring.data.redis.port", () -> redis().port());
    }
}
