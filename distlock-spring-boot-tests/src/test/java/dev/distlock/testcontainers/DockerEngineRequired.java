package dev.distlock.testcontainers;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import com.github.dockerjava.api.exception.NotFoundException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.lifecycle.Startable;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.util.ReflectionUtils;

/**
 * For test classes whose services run in containers: skips the class, saying what is missing, when no Docker
 * engine answers or the local Redis image has not been built, and stops the class's {@code @ServiceConnection}
 * containers after it.
 * <p>
 * The skip is an execution condition rather than an assumption in a {@code beforeAll} callback: Spring's
 * extension builds the test context's configuration in its own callbacks, which run even after an aborted
 * {@code beforeAll}, and Boot's {@code @ServiceConnection} support asks Docker about the container's image there
 * (failing without an engine, and trying to pull a missing image for minutes). A disabled class runs no callback.
 * Declare it before {@code @SpringBootTest}: its {@code afterAll} then runs after Spring's extension has closed the
 * context ({@code @DirtiesContext}), so the application never outlives its Redis. The containers are stopped here
 * because Testcontainers' own reaper (Ryuk) is off: its image cannot be pulled.
 */
final class DockerEngineRequired implements ExecutionCondition, AfterAllCallback {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            return ConditionEvaluationResult.enabled("decided for the class");
        }
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return ConditionEvaluationResult.disabled("No Docker engine answers: the Testcontainers tests of "
                    + context.getDisplayName() + " are skipped (.ci/run installs Debian's docker.io and starts "
                    + "dockerd; or start a Docker engine yourself)");
        }
        String image = RedisContainerImage.name();
        // Only the local image is looked for: any other is the developer's choice, pulled by Testcontainers.
        if (image.equals(RedisContainerImage.LOCAL_IMAGE) && !imageExists(image)) {
            return ConditionEvaluationResult.disabled("Docker image " + image + " not found: the Testcontainers "
                    + "tests of " + context.getDisplayName() + " are skipped (build it with .ci/redis-image.sh, "
                    + "or set " + RedisContainerImage.IMAGE_VARIABLE + "=redis:7 where a registry is reachable)");
        }
        return ConditionEvaluationResult.enabled("Docker answers and has " + image);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ReflectionUtils.doWithFields(context.getRequiredTestClass(), field -> stop(field),
                field -> Modifier.isStatic(field.getModifiers()) && field.isAnnotationPresent(ServiceConnection.class)
                        && Startable.class.isAssignableFrom(field.getType()));
    }

    private static void stop(Field field) {
        ReflectionUtils.makeAccessible(field);
        Object container = ReflectionUtils.getField(field, null);
        if (container != null) {
            ((Startable) container).stop();
        }
    }

    private static boolean imageExists(String image) {
        try {
            DockerClientFactory.instance().client().inspectImageCmd(image).exec();
            return true;
        }
        catch (NotFoundException ex) {
            return false;
        }
    }
}
