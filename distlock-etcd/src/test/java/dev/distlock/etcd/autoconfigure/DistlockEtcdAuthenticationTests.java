package dev.distlock.etcd.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.autoconfigure.DistlockActuatorAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.etcd.EtcdTestCluster;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * etcd authentication end to end, on an etcd server of this class's own (auth stays on until it is stopped, so the
 * JVM's shared server is left alone). The application's user is not root: its role may read and write the keys
 * under {@code distlock.key-prefix} and nothing else, as an operator would grant it.
 * <p>
 * A wrong password does not fail start-up (the store's client does not connect until the first call, so an etcd
 * that is down at start-up does not stop the application): the first lock fails closed with
 * {@link LockUnavailableException}, and health is DOWN.
 */
class DistlockEtcdAuthenticationTests {

    private static final String USER = "locker";

    private static final String PASSWORD = "s3cret-pw";

    private static final String PREFIX = "authlocks";

    static EtcdTestCluster etcd;

    /** The root user's client: reads the keys behind the application's back. */
    static Client root;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockEtcdAutoConfiguration.class,
                    DistlockAutoConfiguration.class, DistlockActuatorAutoConfiguration.class,
                    EndpointAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoint.health.show-details=always", "distlock.key-prefix=" + PREFIX,
                    // A new client's first call connects and authenticates (bcrypt on the server): room for a busy
                    // machine. A refusal is an answer, so it does not wait for this.
                    "distlock.command-timeout=5s");

    @BeforeAll
    static void startEtcdWithAuthentication() throws Exception {
        etcd = EtcdTestCluster.start(1);
        try (Client setup = client(null, null)) {
            Auth auth = setup.getAuthClient();
            auth.userAdd(bytes("root"), bytes("root-pw")).get(5, TimeUnit.SECONDS);
            auth.roleAdd(bytes("root")).get(5, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(5, TimeUnit.SECONDS);
            auth.userAdd(bytes(USER), bytes(PASSWORD)).get(5, TimeUnit.SECONDS);
            auth.roleAdd(bytes("distlock")).get(5, TimeUnit.SECONDS);
            // [PREFIX + "/", PREFIX + "0"): every key of the store, the health check's included.
            auth.roleGrantPermission(bytes("distlock"), bytes(PREFIX + "/"), bytes(PREFIX + "0"),
                    Permission.Type.READWRITE).get(5, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(USER), bytes("distlock")).get(5, TimeUnit.SECONDS);
            auth.authEnable().get(5, TimeUnit.SECONDS);
        }
        root = client("root", "root-pw");
    }

    @AfterAll
    static void stopEtcd() {
        if (root != null) {
            root.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void theConfiguredUserLocksAndHealthIsUpWithoutShowingThePassword() {
        runner.withPropertyValues(endpoints(), "distlock.etcd.username=" + USER, "distlock.etcd.password=" + PASSWORD)
                .run(context -> {
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:1")) {
                        List<KeyValue> keys = keysUnder(PREFIX + "/orders:1/w/");
                        assertThat(keys).hasSize(1);
                        assertThat(keys.get(0).getCreateRevision()).isEqualTo(handle.fencingToken());
                    }
                    assertThat(keysUnder(PREFIX + "/orders:1/")).isEmpty();
                    IndicatedHealthDescriptor health = distlockHealth(context.getBean(HealthEndpoint.class));
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("etcd", "UP");
                    assertThat(String.valueOf(health.getDetails())).doesNotContain(PASSWORD);
                    assertThat(context.getBean(EtcdLockStore.class).toString()).doesNotContain(PASSWORD);
                    assertThat(context.getBean(EtcdLockStore.class).config().toString()).doesNotContain(PASSWORD);
                    assertThat(context.getBean(EtcdLockStoreProperties.class).toString()).doesNotContain(PASSWORD);
                });
    }

    @Test
    void aWrongPasswordFailsClosedAndHealthIsDown() {
        runner.withPropertyValues(endpoints(), "distlock.etcd.username=" + USER, "distlock.etcd.password=wrong-pw")
                .run(context -> {
                    assertThat(context).as("the store's client connects on the first call").hasNotFailed();
                    assertThatThrownBy(() -> context.getBean(LockService.class).lock("orders:2"))
                            .isInstanceOf(LockUnavailableException.class)
                            .hasMessage("etcd refused to authenticate user 'locker' (distlock.etcd.username, "
                                    + "distlock.etcd.password): etcdserver: authentication failed, invalid user ID "
                                    + "or password");
                    assertThat(keysUnder(PREFIX + "/orders:2/")).isEmpty();
                    IndicatedHealthDescriptor health = distlockHealth(context.getBean(HealthEndpoint.class));
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).containsEntry("etcd", "DOWN").hasEntrySatisfying("error",
                            error -> assertThat(error).asString().startsWith("etcd refused to authenticate user"));
                    assertThat(String.valueOf(health.getDetails())).doesNotContain("wrong-pw");
                });
    }

    @Test
    void withoutCredentialsAnAuthenticatingEtcdRefusesTheLock() {
        runner.withPropertyValues(endpoints()).run(context -> {
            assertThatThrownBy(() -> context.getBean(LockService.class).lock("orders:3"))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("etcdserver: user name is empty");
            assertThat(keysUnder(PREFIX + "/orders:3/")).isEmpty();
        });
    }

    @Test
    void aUserWhoseRoleDoesNotCoverTheKeyPrefixIsRefused() {
        runner.withPropertyValues(endpoints(), "distlock.etcd.username=" + USER, "distlock.etcd.password=" + PASSWORD,
                "distlock.key-prefix=elsewhere").run(context -> {
                    assertThatThrownBy(() -> context.getBean(LockService.class).lock("orders:4"))
                            .isInstanceOf(LockUnavailableException.class)
                            .hasMessageContaining("permission denied");
                });
    }

    private static String endpoints() {
        return "distlock.etcd.endpoints=" + String.join(",", etcd.endpoints());
    }

    private static Client client(String user, String password) {
        var builder = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new));
        if (user != null) {
            builder.user(bytes(user)).password(bytes(password));
        }
        return builder.build();
    }

    private static List<KeyValue> keysUnder(String prefix) throws Exception {
        return root.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build())
                .get(5, TimeUnit.SECONDS).getKvs();
    }

    private static IndicatedHealthDescriptor distlockHealth(HealthEndpoint endpoint) {
        return (IndicatedHealthDescriptor) endpoint.healthForPath("distlock");
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
