package dev.distlock.etcd.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.StoreLockService;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.etcd.EtcdTestCluster;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.AnotherStore;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
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
 * The etcd store's auto-configuration against a real etcd server ({@link EtcdTestCluster#shared()}, skipped with
 * a visible reason without the binary). This module's class path is an etcd application's; the tests with two
 * stores add {@link AnotherStore}.
 */
class DistlockEtcdAutoConfigurationTests {

    static EtcdTestCluster etcd;

    /** Reads etcd behind the application's back, to see what the store wrote. */
    static Client admin;

    @TempDir
    static Path anotherStoreModule;

    /** An etcd application: this module's class path, jetcd and no other store. */
    private final ApplicationContextRunner etcdOnly = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AnotherStore.Config.class,
                    DistlockEtcdAutoConfiguration.class, DistlockAutoConfiguration.class))
            // A new client's first call connects (and, first in the JVM, loads gRPC): room for a busy machine.
            .withPropertyValues("distlock.command-timeout=5s");

    /** With a second store on the class path ({@link AnotherStore}). */
    private final ApplicationContextRunner runner = etcdOnly.withClassLoader(
            AnotherStore.classLoader(anotherStoreModule));

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdTestCluster.shared();
        admin = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            admin.close();
        }
    }

    static String endpoints() {
        return "distlock.etcd.endpoints=" + String.join(",", etcd.endpoints());
    }

    /** @return the keys under the prefix, as etcd has them now */
    static List<KeyValue> keysUnder(String prefix) {
        try {
            return admin.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build())
                    .get(5, TimeUnit.SECONDS).getKvs();
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not read " + prefix + " from etcd", ex);
        }
    }

    static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }

    @Test
    void jetcdAloneOnTheClassPathIsChosenAndAnAnnotatedMethodLocksInEtcd() {
        etcdOnly.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues(endpoints(), "distlock.key-prefix=boot-alone").withBean(Stock.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(StoreLockService.class).hasSingleBean(EtcdLockStore.class)
                            .doesNotHaveBean(InMemoryLockStore.class);
                    assertThat(context.getEnvironment().getProperty("distlock.store")).isNull();
                    // Keys are <distlock.key-prefix>/<name>/w/<request id>; the name is "stock:42".
                    Held held = context.getBean(Stock.class).deduct(42, () -> keysUnder("boot-alone/stock:42/w/"));
                    assertThat(held.keysInEtcd()).as("the lock's key, read from etcd while the method ran")
                            .hasSize(1);
                    assertThat(held.keysInEtcd().get(0).getCreateRevision())
                            .as("the fencing token is the key's create revision").isEqualTo(held.fencingToken());
                    assertThat(keysUnder("boot-alone/stock:42/")).as("released in etcd").isEmpty();
                });
    }

    @Test
    void distlockStoreEtcdChoosesItWhenAnotherStoreIsOnTheClassPathToo() {
        runner.withPropertyValues("distlock.store=etcd", endpoints(), "distlock.key-prefix=boot-chosen")
                .run(context -> {
                    assertThat(context).hasSingleBean(EtcdLockStore.class).doesNotHaveBean(InMemoryLockStore.class);
                    assertThat(context.getBean(LockStore.class)).isInstanceOf(EtcdLockStore.class);
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:1")) {
                        assertThat(keysUnder("boot-chosen/orders:1/")).hasSize(1);
                    }
                });
        runner.withPropertyValues(endpoints()).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("distlock.store").hasMessageContaining("etcd")
                .hasMessageContaining(AnotherStore.ID));
    }

    @Test
    void theApplicationsOwnClientIsUsedAndLeftOpenWhenTheContextCloses() throws Exception {
        try (Client own = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
            // The property names a port nothing listens on: locking works only on the application's client.
            etcdOnly.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1", "distlock.key-prefix=boot-own")
                    .withBean(Client.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .run(context -> {
                        assertThat(context.getBean(EtcdLockStore.class).client()).isSameAs(own);
                        try (LockHandle handle = context.getBean(LockService.class).lock("own")) {
                            assertThat(keysUnder("boot-own/own/")).hasSize(1);
                        }
                    });
            assertThat(own.getKVClient().get(bytes("boot-own/")).get(5, TimeUnit.SECONDS))
                    .as("the application's client is the application's to close").isNotNull();
        }
    }

    @Test
    void theStoresOwnClientIsClosedWithTheContext() {
        Client[] client = new Client[1];
        etcdOnly.withPropertyValues(endpoints()).run(context -> {
            client[0] = context.getBean(EtcdLockStore.class).client();
            assertThat(client[0].getKVClient().get(bytes("distlock/")).get(5, TimeUnit.SECONDS)).isNotNull();
        });
        // A closed jetcd client refuses calls at once: its executor is shut down.
        assertThatThrownBy(() -> client[0].getKVClient().get(bytes("distlock/")).get(5, TimeUnit.SECONDS))
                .as("a call on the store's client after the context closed")
                .hasRootCauseInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void twoClientBeansLeaveTheStoreToItsOwnClient() throws Exception {
        try (Client first = Client.builder().endpoints("http://127.0.0.1:1").build();
                Client second = Client.builder().endpoints("http://127.0.0.1:1").build()) {
            etcdOnly.withPropertyValues(endpoints(), "distlock.key-prefix=boot-two")
                    .withBean("first", Client.class, () -> first, definition -> definition.setDestroyMethodName(""))
                    .withBean("second", Client.class, () -> second,
                            definition -> definition.setDestroyMethodName(""))
                    .run(context -> {
                        Client used = context.getBean(EtcdLockStore.class).client();
                        assertThat(used).isNotSameAs(first).isNotSameAs(second);
                        context.getBean(LockService.class).lock("two").unlock();
                    });
        }
    }

    @Test
    void anApplicationsOwnLockStoreTakesThePlaceOfTheEtcdStore() {
        etcdOnly.withPropertyValues(endpoints()).withBean(LockStore.class, InMemoryLockStore::new).run(context -> {
            assertThat(context).hasSingleBean(LockStore.class).doesNotHaveBean(EtcdLockStore.class);
            assertThat(context.getBean(LockStore.class)).isInstanceOf(InMemoryLockStore.class);
        });
    }

    @Test
    void endpointsAndCredentialsBind() {
        etcdOnly.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:2379, https://etcd-2.example:2379",
                "distlock.etcd.username=locker", "distlock.etcd.password=s3cret-pw",
                "distlock.command-timeout=750ms", "distlock.key-prefix=bound").run(context -> {
                    assertThat(context).getBean(EtcdLockStoreProperties.class).satisfies(properties -> {
                        assertThat(properties.endpoints()).containsExactly("http://127.0.0.1:2379",
                                "https://etcd-2.example:2379");
                        assertThat(properties.username()).isEqualTo("locker");
                        assertThat(properties.password()).isEqualTo("s3cret-pw");
                        assertThat(properties.toString()).doesNotContain("s3cret-pw");
                    });
                    EtcdLockStore store = context.getBean(EtcdLockStore.class);
                    assertThat(store.config().endpoints()).containsExactly("http://127.0.0.1:2379",
                            "https://etcd-2.example:2379");
                    assertThat(store.config().username()).isEqualTo("locker");
                    assertThat(store.config().password()).isEqualTo("s3cret-pw");
                    assertThat(store.config().keyPrefix()).isEqualTo("bound");
                    assertThat(store.config().commandTimeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(store.toString()).doesNotContain("s3cret-pw");
                    assertThat(store.config().toString()).doesNotContain("s3cret-pw");
                });
    }

    @Test
    void byDefaultTheStoreConnectsToLocalhost2379WithoutAuthentication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockEtcdAutoConfiguration.class,
                        DistlockAutoConfiguration.class))
                .withPropertyValues("distlock.etcd.username=", "distlock.etcd.password=").run(context -> {
                    EtcdLockStore store = context.getBean(EtcdLockStore.class);
                    assertThat(store.config().endpoints()).containsExactly("http://localhost:2379");
                    assertThat(store.config().username()).as("empty is unset").isNull();
                    assertThat(store.config().password()).isNull();
                    assertThat(store.config().keyPrefix()).isEqualTo("distlock");
                    assertThat(store.config().commandTimeout()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void badValuesFailStartUpNamingTheProperty() {
        // The root cause is the URI parser's; the store's message, naming the property, wraps it.
        etcdOnly.withPropertyValues("distlock.etcd.endpoints=not a url").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("distlock.etcd.endpoints holds an invalid URL "
                        + "'not a url'"));
        etcdOnly.withPropertyValues("distlock.etcd.endpoints=localhost:2379").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.etcd.endpoints"));
        etcdOnly.withPropertyValues(endpoints(), "distlock.etcd.password=orphan").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining("distlock.etcd.password")
                .hasMessageContaining("distlock.etcd.username").hasMessageNotContaining("orphan"));
    }

    @Test
    void anUnreachableClusterFailsClosedWithinTheCommandTimeout() {
        etcdOnly.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1", "distlock.command-timeout=500ms")
                .run(context -> {
                    LockService locks = context.getBean(LockService.class);
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> locks.lock("nowhere")).isInstanceOf(LockUnavailableException.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
                    assertThat(context.getBean(StoreLockService.class).storeHealth(Duration.ofMillis(500)).up())
                            .isFalse();
                });
    }

    /** What the locked method saw: its fencing token and its lock's keys in etcd. */
    public record Held(long fencingToken, List<KeyValue> keysInEtcd) {
    }

    /** The application's locked service (public: its proxy class is defined in the test's filtered class loader). */
    public static class Stock {

        @DistributedLock(name = "stock", key = "#productId")
        public Held deduct(long productId, Supplier<List<KeyValue>> inEtcd) {
            return new Held(LockContext.current().orElseThrow().fencingToken(), inEtcd.get());
        }
    }
}
