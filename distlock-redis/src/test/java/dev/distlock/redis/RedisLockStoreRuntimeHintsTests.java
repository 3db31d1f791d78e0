package dev.distlock.redis;

import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the Redis stores, as AOT processing collects them from {@code META-INF/spring/aot.factories}
 * (so a missing or misspelled entry fails here too).
 */
class RedisLockStoreRuntimeHintsTests {

    private final RuntimeHints hints = hintsFromAotFactories();

    @Test
    void everyScriptTheStoresLoadIsAResource() {
        assertThat(Stream.of(LuaScript.ACQUIRE, LuaScript.RELEASE, LuaScript.RENEW).map(LuaScript::name))
                .allSatisfy(script -> assertThat(RuntimeHintsPredicates.resource()
                        .forResource(TypeReference.of(LuaScript.class), script)).accepts(hints));
    }

    @Test
    void everyScriptOfThePackageIsAResource() throws IOException {
        // A script added later is covered too, whatever its name.
        Resource[] scripts = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:dev/distlock/redis/*.lua");
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(3).allSatisfy(script -> assertThat(RuntimeHintsPredicates
                .resource().forResource("dev/distlock/redis/" + script.getFilename())).accepts(hints));
    }

    @Test
    void theClientClassesLookedUpByNameAreRegistered() {
        ClassLoader classLoader = getClass().getClassLoader();
        assertThat(RedisLockStoreRuntimeHints.CLIENT_TYPES).isNotEmpty().allSatisfy(type -> {
            // Lettuce and Jedis are on the test class path: a misspelled name is not found.
            assertThat(ClassUtils.isPresent(type, classLoader)).as(type).isTrue();
            assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(type))).accepts(hints);
        });
    }

    @Test
    void aResourceOutsideThePatternIsNotRegistered() {
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/acquire.txt")).rejects(hints);
        assertThat(Arrays.asList(RedisLockStoreRuntimeHints.SCRIPTS.split("/"))).last().isEqualTo("*.lua");
    }

    private static RuntimeHints hintsFromAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = RedisLockStoreRuntimeHintsTests.class.getClassLoader();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
                .load(RuntimeHintsRegistrar.class).forEach(registrar -> registrar.registerHints(hints, classLoader));
        return hints;
    }
}
