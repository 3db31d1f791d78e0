package dev.distlock.actuate;

import java.lang.reflect.RecordComponent;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator endpoint needs no hints of distlock's own: Spring Boot's {@code @ReadOperation} is
 * {@code @Reflective}, and its processor registers the operation and binding hints for everything the answer
 * serializes. This checks that it reaches every record of the answer (nested ones included), so that the JSON
 * written in a native image has all its fields.
 */
class DistlockEndpointRuntimeHintsTests {

    @Test
    void everyComponentOfTheAnswerIsSerializableByReflection() {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, DistlockEndpoint.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DistlockEndpoint.class, "locks"))
                .accepts(hints);
        for (Class<?> type : List.of(DistlockEndpoint.DistlockDescriptor.class, DistlockEndpoint.Counts.class,
                DistlockEndpoint.HeldLockDescriptor.class, DistlockEndpoint.WatchdogDescriptor.class)) {
            assertThat(type.getRecordComponents()).extracting(RecordComponent::getName).isNotEmpty().allSatisfy(
                    accessor -> assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, accessor))
                            .as("%s.%s()", type.getSimpleName(), accessor).accepts(hints));
        }
    }
}
