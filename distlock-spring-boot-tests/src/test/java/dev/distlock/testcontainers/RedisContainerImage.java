package dev.distlock.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The Redis image the Testcontainers tests run and the container made of it. No image registry is reachable on
 * the machines this build runs on, so the default is {@value #LOCAL_IMAGE}, which {@code .ci/redis-image.sh} makes
 * from the machine's {@code redis-server}; with a registry, {@code DISTLOCK_TEST_REDIS_IMAGE=redis:7} runs the
 * official image instead (it starts the same way: the tests set no command).
 */
final class RedisContainerImage {

    /** The image {@code .ci/redis-image.sh} builds by default. */
    static final String LOCAL_IMAGE = "distlock/redis-local:latest";

    /** Environment variable (or, as {@code distlock.test.redis-image}, system property) naming another image. */
    static final String IMAGE_VARIABLE = "DISTLOCK_TEST_REDIS_IMAGE";

    private static final String IMAGE_PROPERTY = "distlock.test.redis-image";

    private RedisContainerImage() {
    }

    /**
     * @return the image named by {@value #IMAGE_PROPERTY} or {@value #IMAGE_VARIABLE}, else {@value #LOCAL_IMAGE}
     */
    static String name() {
        String name = System.getProperty(IMAGE_PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(IMAGE_VARIABLE);
        }
        return (name == null || name.isBlank()) ? LOCAL_IMAGE : name.strip();
    }

    /**
     * @return a container of the image, not started (Spring Boot starts it when the application first asks for its
     *         connection details); ready once Redis says so in its log, which works without a shell in the image
     *         (the default port check runs one inside the container, and the local image has none)
     */
    static GenericContainer<?> newContainer() {
        return new GenericContainer<>(DockerImageName.parse(name())).withExposedPorts(6379)
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
    }
}
