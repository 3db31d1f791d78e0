package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;
import dev.distlock.spi.line.LinePosition;
import dev.distlock.spi.line.LinePosition.Gone;
import dev.distlock.spi.line.LinePosition.Holds;
import dev.distlock.spi.line.LinePosition.Mismatched;
import dev.distlock.spi.line.LinePosition.WaitsBehind;
import dev.distlock.spi.line.LinePosition.WaitsForAPermit;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Node paths, node names, the read/write queue rules and the configuration checks, without a server.
 */
class LockPathsTests {

    @Test
    void plainNamesAreKeptAndOthersPercentEncoded() {
        assertThat(LockPaths.lockPath("/distlock", "stock:42")).isEqualTo("/distlock/stock:42");
        assertThat(LockPaths.lockPath("/", "x")).isEqualTo("/x");
        assertThat(LockPaths.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(LockPaths.encode("50%")).isEqualTo("50%25");
        assertThat(LockPaths.encode(".")).isEqualTo("%2E");
        assertThat(LockPaths.encode("..")).isEqualTo("%2E%2E");
        assertThat(LockPaths.encode("a.b")).isEqualTo("a.b");
        assertThat(LockPaths.encode("tab\t")).isEqualTo("tab%09");
        assertThat(LockPaths.encode("😀")).isEqualTo("%F0%9F%98%80");
        assertThat(LockPaths.encode("grüße")).isEqualTo("grüße");
        for (String name : List.of("a/b", ".", "..", "\u0000", "\u007f", "\uffff", "😀", "/")) {
            PathUtils.validatePath(LockPaths.lockPath("/distlock", name));
        }
    }

    @Test
    void nodeNamesFollowCuratorsReadWriteLock() {
        String write = "_c_0f8fad5b-d9cb-469f-a165-70867728950e-__WRIT__0000000012";
        String read = "_c_0f8fad5b-d9cb-469f-a165-70867728950e-__READ__0000000007";
        assertThat(LockPaths.sequence(write)).isEqualTo(12);
        assertThat(LockPaths.isRead(write)).isFalse();
        assertThat(LockPaths.isRead(read)).isTrue();
        assertThat(LockPaths.sequence("not-a-lock-node")).isEqualTo(-1);
    }

    @Test
    void exclusiveWaitsForItsPredecessorAndReadersOnlyForTheNearestEarlierWriter() {
        List<String> children = List.of("x-__READ__0000000003", "x-__WRIT__0000000001", "x-__READ__0000000002",
                "x-__WRIT__0000000004", "x-__READ__0000000005", "junk");
        assertThat(LockPaths.position(children, "x-__WRIT__0000000001")).isInstanceOf(Holds.class);
        assertThat(LockPaths.position(children, "x-__READ__0000000002"))
                .isEqualTo(new WaitsBehind<>("x-__WRIT__0000000001"));
        assertThat(LockPaths.position(children, "x-__WRIT__0000000004"))
                .isEqualTo(new WaitsBehind<>("x-__READ__0000000003"));
        assertThat(LockPaths.position(children, "x-__READ__0000000005"))
                .isEqualTo(new WaitsBehind<>("x-__WRIT__0000000004"));
        assertThat(LockPaths.position(List.of("x-__READ__0000000002", "x-__READ__0000000003"),
                "x-__READ__0000000003")).isInstanceOf(Holds.class);
        assertThat(LockPaths.position(children, "x-__WRIT__0000000009")).isInstanceOf(Gone.class);
    }

    @Test
    void badSettingsNameTheProperty() {
        ZooKeeperLockConfig defaults = ZooKeeperLockConfig.defaults();
        assertThat(defaults.connectString()).isEqualTo("localhost:2181");
        assertThat(defaults.basePath()).isEqualTo("/distlock");
        assertThat(defaults.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> defaults.withConnectString(" ")).hasMessageContaining(
                "distlock.zookeeper.connect-string");
        assertThatThrownBy(() -> defaults.withBasePath("locks")).isInstanceOf(InvalidPropertyException.class)
                .hasMessageContaining("distlock.zookeeper.base-path");
        assertThatThrownBy(() -> defaults.withBasePath("/locks/")).hasMessageContaining(
                "distlock.zookeeper.base-path");
        assertThatThrownBy(() -> defaults.withBasePath("/a//b")).hasMessageContaining("distlock.zookeeper.base-path");
        assertThatThrownBy(() -> defaults.withSessionTimeout(Duration.ZERO)).hasMessageContaining(
                "distlock.zookeeper.session-timeout");
        assertThatThrownBy(() -> defaults.withCommandTimeout(Duration.ZERO)).hasMessageContaining(
                "distlock.command-timeout");
    }
}
