package dev.distlock.zookeeper;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) for what the ZooKeeper store's client reaches by reflection. The store itself
 * loads nothing by name, but the ZooKeeper client it connects through instantiates its socket class by name
 * ({@code zookeeper.clientCnxnSocket}, default {@code ClientCnxnSocketNIO}, through its
 * {@code (ZKClientConfig)} constructor), and Curator looks up {@code AddWatchMode} by name to decide whether
 * persistent watches exist. Neither library ships native metadata. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
final class ZooKeeperLockStoreRuntimeHints implements RuntimeHintsRegistrar {

    static final String CLIENT_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNIO";

    static final String CLIENT_CONFIG = "org.apache.zookeeper.client.ZKClientConfig";

    static final String ADD_WATCH_MODE = "org.apache.zookeeper.AddWatchMode";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerType(TypeReference.of(CLIENT_SOCKET), type -> type.withConstructor(
                List.of(TypeReference.of(CLIENT_CONFIG)), ExecutableMode.INVOKE));
        hints.reflection().registerType(TypeReference.of(ADD_WATCH_MODE));
    }
}
