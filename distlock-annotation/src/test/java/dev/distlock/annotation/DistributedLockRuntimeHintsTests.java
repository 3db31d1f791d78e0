package dev.distlock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the annotation support, as AOT processing collects them: from
 * {@code META-INF/spring/aot.factories} (so a missing or misspelled entry fails here) and from the
 * {@code @Reflective} meta-annotation on {@link DistributedLock} for the beans' annotated methods.
 */
class DistributedLockRuntimeHintsTests {

    @Test
    void everyAccessorOfTheExpressionRootObjectIsInvocable() {
        RuntimeHints hints = hintsFromAotFactories();
        // SpEL resolves #root.methodName, #root.args, ... reflectively; a component added later is covered too.
        assertThat(LockExpressionRootObject.class.getRecordComponents()).extracting(RecordComponent::getName)
                .contains("method", "args", "target", "targetClass")
                .allSatisfy(accessor -> assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(LockExpressionRootObject.class, accessor)).accepts(hints));
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockExpressionRootObject.class,
                "methodName")).accepts(hints);
    }

    @Test
    void theReactiveTypesLookedUpByNameAreRegistered() {
        RuntimeHints hints = hintsFromAotFactories();
        assertThat(DistributedLockRuntimeHints.OPTIONAL_TYPES).isNotEmpty().allSatisfy(type -> assertThat(
                RuntimeHintsPredicates.reflection().onType(TypeReference.of(type))).accepts(hints));
    }

    @Test
    void annotatedMethodsOfABeanAreInvocableAndOthersAreNot() {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Locked.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Locked.class, "direct")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Locked.class, "composed")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Locked.class, "unlocked"))
                .rejects(hints);
    }

    @Test
    void skipCanInstantiateAConcreteCollectionReturnType() {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Locked.class);
        assertThat(RuntimeHintsPredicates.reflection().onType(ArrayList.class)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(TreeMap.class)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(hints);
        // An interface return type gets an immutable empty value, no reflection.
        assertThat(RuntimeHintsPredicates.reflection().onType(List.class)).rejects(hints);
    }

    private static RuntimeHints hintsFromAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = DistributedLockRuntimeHintsTests.class.getClassLoader();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
                .load(RuntimeHintsRegistrar.class).forEach(registrar -> registrar.registerHints(hints, classLoader));
        return hints;
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(onTimeout = OnTimeout.SKIP)
    @interface SkippedWhenBusy {
    }

    static class Locked {

        @DistributedLock(key = "#root.methodName", onTimeout = OnTimeout.SKIP)
        public ArrayList<String> direct() {
            return new ArrayList<>();
        }

        @SkippedWhenBusy
        public TreeMap<String, String> composed() {
            return new TreeMap<>();
        }

        @DistributedLock(onTimeout = OnTimeout.SKIP)
        public List<String> list() {
            return List.of();
        }

        public void unlocked() {
        }
    }
}
