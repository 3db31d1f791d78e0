package dev.distlock.memcached.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockPropertyFailureAnalyzer;
import dev.distlock.core.StoreLockService;
import dev.distlock.memcached.MemcachedTestServer;
import dev.distlock.memcached.MemcachedLockStore;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.AnotherStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Memcached store's auto-configuration against real {@code memcached} processes ({@link MemcachedTestServer},
 * skipped with a visible reason without the binary). This module's class path is a Memcached application's; the
 * tests with two stores add {@link AnotherStore}.
 */
class DistlockMemcachedAutoConfigurationTests {

    static MemcachedTestServer memcached;

    /** Started without -M: it may evict. */
    static MemcachedTestServer evicting;

    @TempDir
    static Path anotherStoreModule;

    /** A Memcached application: this module's class path, Folsom and no other store. */
    private final ApplicationContextRunner memcachedOnly = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AnotherStore.Config.class,
                    DistlockMemcachedAutoConfiguration.class, DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.command-timeout=5s"); // a first Netty client on a busy machine

    /** With a second store on the class path ({@link AnotherStore}). */
    private final ApplicationContextRunner runner = memcachedOnly.withClassLoader(
            AnotherStore.classLoader(anotherStoreModule));

    @BeforeAll
    static void start() {
        memcached = MemcachedTestServer.start();
        evicting = MemcachedTestServer.start(true);
    }

    @AfterAll
    static void stop() {
        if (memcached != null) { // null when the binary is missing and the tests were skipped
            memcached.close();
        }
        if (evicting != null) {
            evicting.close();
        }
    }

    static String servers() {
        return "distlock.memcached.servers=" + memcached.address();
    }

    @Test
    void folsomAloneOnTheClassPathIsChosenAndAnAnnotatedMethodLocksInMemcached() {
        memcachedOnly.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues(servers(), "distlock.key-prefix=boot-alone").withBean(Stock.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(StoreLockService.class).hasSingleBean(MemcachedLockStore.class)
                            .doesNotHaveBean(InMemoryLockStore.class);
                    assertThat(context.getEnvironment().getProperty("distlock.store")).isNull();
                    // The item is <distlock.key-prefix>:<name, URL-encoded>; the name is "stock:42".
                    Held held = context.getBean(Stock.class).deduct(42, () -> Raw.value("boot-alone:stock%3A42"));
                    assertThat(held.item()).as("the lock's item, read while the method ran")
                            .startsWith(held.fencingToken() + "|");
                    assertThat(Raw.value("boot-alone:stock%3A42")).as("released: a free item keeps the floor")
                            .startsWith(held.fencingToken() + "|0|-|");
                });
    }

    @Test
    void distlockStoreMemcachedChoosesItWhenAnotherStoreIsOnTheClassPathToo() {
        runner.withPropertyValues("distlock.store=memcached", servers(), "distlock.key-prefix=boot-chosen")
                .run(context -> {
                    assertThat(context).hasSingleBean(MemcachedLockStore.class)
                            .doesNotHaveBean(InMemoryLockStore.class);
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:1")) {
                        assertThat(Raw.value("boot-chosen:orders%3A1")).startsWith(handle.fencingToken() + "|");
                    }
                });
        runner.withPropertyValues(servers()).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("distlock.store").hasMessageContaining("memcached")
                .hasMessageContaining(AnotherStore.ID));
    }

    @Test
    void anApplicationsOwnLockStoreTakesThePlaceOfTheMemcachedStore() {
        memcachedOnly.withPropertyValues(servers()).withBean(LockStore.class, InMemoryLockStore::new).run(context -> {
            assertThat(context).hasSingleBean(LockStore.class).doesNotHaveBean(MemcachedLockStore.class);
            assertThat(context.getBean(LockStore.class)).isInstanceOf(InMemoryLockStore.class);
        });
    }

    @Test
    void propertiesBindAndDefaultToLocalhost11211WithEvictionsRefused() {
        memcachedOnly.withBean(LockStore.class, InMemoryLockStore::new)
                .withPropertyValues("distlock.memcached.servers=10.0.0.1:11211, cache-2:11311",
                        "distlock.memcached.allow-evictions=true").run(context -> {
                            assertThat(context.getBean(MemcachedLockStoreProperties.class).allowEvictions()).isTrue();
                            assertThat(context.getBean(MemcachedConnectionDetails.class).getServers())
                                    .containsExactly("10.0.0.1:11211", "cache-2:11311");
                        });
        memcachedOnly.withBean(LockStore.class, InMemoryLockStore::new).run(context -> {
            assertThat(context.getBean(MemcachedLockStoreProperties.class).allowEvictions()).isFalse();
            assertThat(context.getBean(MemcachedConnectionDetails.class).getServers())
                    .containsExactly("localhost:11211");
        });
    }

    @Test
    void theApplicationsConnectionDetailsTakeThePlaceOfTheProperties() {
        // The property names a port nothing listens on: locking works only through the connection details.
        memcachedOnly.withPropertyValues("distlock.memcached.servers=127.0.0.1:1", "distlock.key-prefix=boot-details")
                .withBean(MemcachedConnectionDetails.class, () -> () -> List.of(memcached.address()))
                .run(context -> {
                    try (LockHandle handle = context.getBean(LockService.class).lock("details")) {
                        assertThat(Raw.value("boot-details:details")).startsWith(handle.fencingToken() + "|");
                    }
                });
    }

    @Test
    void aServerThatMayEvictFailsStartUpUnlessEvictionsAreAllowed() {
        memcachedOnly.withPropertyValues("distlock.memcached.servers=" + evicting.address()).run(context -> {
            assertThat(context).hasFailed().getFailure().rootCause().isInstanceOf(InvalidPropertyException.class)
                    .hasMessageContaining("distlock.memcached.allow-evictions").hasMessageContaining("memcached -M");
            // Reported as Boot's Description / Action block naming the property and what to do on the server.
            assertThat(new DistlockPropertyFailureAnalyzer().analyze(context.getStartupFailure()))
                    .satisfies(analysis -> {
                        assertThat(analysis.getDescription()).contains("distlock.memcached.allow-evictions")
                                .contains(evicting.address()).contains("memcached -M");
                        assertThat(analysis.getAction()).contains("distlock.memcached.allow-evictions");
                    });
        });
        memcachedOnly.withPropertyValues("distlock.memcached.servers=" + evicting.address(),
                "distlock.memcached.allow-evictions=true").run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(LockService.class).lock("allowed").unlock();
                });
    }

    @Test
    void badValuesFailStartUpNamingTheProperty() {
        memcachedOnly.withPropertyValues("distlock.memcached.servers=no-port").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.memcached.servers")
                .hasMessageContaining("no-port"));
        memcachedOnly.withPropertyValues(servers(), "distlock.key-prefix=with space").run(context -> assertThat(
                context).hasFailed().getFailure().rootCause().hasMessageContaining("distlock.key-prefix"));
    }

    @Test
    void anUnreachableServerFailsClosedWithinTheCommandTimeout() {
        memcachedOnly.withPropertyValues("distlock.memcached.servers=127.0.0.1:1", "distlock.command-timeout=500ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockService locks = context.getBean(LockService.class);
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> locks.lock("nowhere")).isInstanceOf(LockUnavailableException.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
                    assertThat(context.getBean(StoreLockService.class).storeHealth(Duration.ofMillis(500)).up())
                            .isFalse();
                });
    }

    /** Reads the test server behind the application's back. */
    static final class Raw {

        static String value(String key) {
            return memcached.value(key);
        }
    }

    /** What the locked method saw: its fencing token and its lock's item in Memcached. */
    public record Held(long fencingToken, String item) {
    }

    /** The application's locked service (public: its proxy class is defined in the test's filtered class loader). */
    public static class Stock {

        @DistributedLock(name = "stock", key = "#productId")
        public Held deduct(long productId, Supplier<String> inMemcached) {
            return new Held(LockContext.current().orElseThrow().fencingToken(), inMemcached.get());
        }
    }
}
