package dev.distlock.etcd.autoconfigure;

import java.nio.charset.StandardCharsets;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.etcd.EtcdTestCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EtcdConnectionDetails}: the etcd store's own client connects where that bean says, so an application's
 * (or a test's service connection) takes the place of {@code distlock.etcd.*}. Against a real etcd server.
 */
class DistlockEtcdConnectionDetailsTests {

    static EtcdTestCluster etcd;

    /** An etcd application: this module's class path, jetcd and no other store. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockEtcdAutoConfiguration.class,
                    DistlockAutoConfiguration.class))
            // A new client's first call connects (and, first in the JVM, loads gRPC): room for a busy machine.
            .withPropertyValues("distlock.command-timeout=5s");

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdTestCluster.shared();
    }

    @Test
    void theApplicationsConnectionDetailsWinOverTheProperties() {
        EtcdConnectionDetails details = () -> etcd.endpoints();
        // The properties name a port nothing listens on, and credentials this etcd (auth off) would refuse:
        // locking works only if the store follows the bean, for the endpoints and the credentials alike.
        runner.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1", "distlock.etcd.username=nobody",
                "distlock.etcd.password=wrong", "distlock.key-prefix=details")
                .withBean(EtcdConnectionDetails.class, () -> details).run(context -> {
                    assertThat(context).getBean(EtcdConnectionDetails.class).isSameAs(details);
                    assertThat(context).doesNotHaveBean(PropertiesEtcdConnectionDetails.class);
                    EtcdLockStore store = context.getBean(EtcdLockStore.class);
                    assertThat(store.config().endpoints()).isEqualTo(etcd.endpoints());
                    assertThat(store.config().username()).isNull();
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:7")) {
                        assertThat(store.client().getKVClient().get(bytes("details/orders:7/"),
                                GetOption.builder().isPrefix(true).build()).join().getKvs()).hasSize(1);
                    }
                });
    }

    @Test
    void byDefaultTheDetailsComeFromTheProperties() {
        runner.withPropertyValues("distlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
                "distlock.etcd.username=someone", "distlock.etcd.password=pw").run(context -> {
                    assertThat(context).getBean(EtcdConnectionDetails.class)
                            .isInstanceOf(PropertiesEtcdConnectionDetails.class).satisfies(details -> {
                                assertThat(details.getEndpoints()).isEqualTo(etcd.endpoints());
                                assertThat(details.getUsername()).isEqualTo("someone");
                                assertThat(details.getPassword()).isEqualTo("pw");
                            });
                });
        runner.withPropertyValues("distlock.etcd.endpoints=" + String.join(",", etcd.endpoints())).run(context -> {
            assertThat(context.getBean(EtcdConnectionDetails.class).getEndpoints()).isEqualTo(etcd.endpoints());
            context.getBean(LockService.class).lock("orders:8").unlock();
        });
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
