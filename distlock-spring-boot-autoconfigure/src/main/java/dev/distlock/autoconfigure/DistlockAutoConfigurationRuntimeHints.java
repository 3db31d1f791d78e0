package dev.distlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) of the auto-configuration. AOT processing evaluates the conditions at build
 * time, but the start-up check for a missing lock store ({@link LockServiceRequiredVerifier}) still reads the
 * {@link LockStoreRegistration}s from {@code META-INF/spring.factories} and looks up their client classes by name
 * to say which store is on the class path; in a native image a resource, constructor or name that is not
 * registered is not found and the message would be wrong. {@link DistlockProperties} needs nothing here: Spring
 * Boot registers the binding hints of every {@code @ConfigurationProperties} bean. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
final class DistlockAutoConfigurationRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("META-INF/spring.factories");
        for (LockStoreRegistration store : LockStoreSelection.registered(classLoader)) {
            hints.reflection().registerType(store.getClass(), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
            store.requiredClassNames().forEach(name -> hints.reflection().registerType(TypeReference.of(name)));
        }
    }
}
