package dev.distlock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs an application's integration tests against a real Redis without installing one: the Spring TestContext
 * framework starts an embedded {@code redis-server} (from {@code distlock-embedded-redis}) and points
 * {@code spring.data.redis.host} and {@code spring.data.redis.port} at it, above every other property source.
 * <pre>{@code
 * @SpringBootTest
 * @DistlockTest
 * class OrderServiceIntegrationTests {
 *     // @DistributedLock methods lock in the embedded Redis
 * }
 * }</pre>
 * One server serves the whole JVM (every test class, every cached context), so Spring's context cache keeps
 * working; it is killed when the JVM exits. {@link DistlockTestRedis#address()} tells tests where it is. Works as a
 * meta-annotation, on a superclass and on the enclosing class of {@code @Nested} tests.
 * <p>
 * Host and port only: an application that configures {@code spring.data.redis.url}, a password, Sentinel or
 * Cluster should override those for its tests, since they would take precedence or not fit the embedded server.
 *
 * @see DistlockTestRedis
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface DistlockTest {
}
