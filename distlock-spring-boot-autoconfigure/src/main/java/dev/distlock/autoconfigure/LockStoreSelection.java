package dev.distlock.autoconfigure;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

/**
 * Which lock store an application uses: the {@linkplain LockStoreRegistration registered} store that
 * {@code distlock.store} names, or else the only one whose client library is on the class path. A wrong or
 * ambiguous setting fails start-up with a message that names the property and the stores found.
 */
final class LockStoreSelection {

    static final String PROPERTY = "distlock.store";

    private LockStoreSelection() {
    }

    /**
     * @param classLoader where the store modules and their clients are looked up
     * @return every registered store, present or not, in the order of the class path
     */
    static List<LockStoreRegistration> registered(@Nullable ClassLoader classLoader) {
        return SpringFactoriesLoader.forDefaultResourceLocation(classLoader).load(LockStoreRegistration.class);
    }

    /**
     * @param classLoader where the store modules and their clients are looked up
     * @return the registered stores whose client library is on the class path
     */
    static List<LockStoreRegistration> present(@Nullable ClassLoader classLoader) {
        return present(registered(classLoader), classLoader);
    }

    private static List<LockStoreRegistration> present(List<LockStoreRegistration> stores,
            @Nullable ClassLoader classLoader) {
        return stores.stream().filter(store -> store.requiredClassNames().stream()
                .allMatch(name -> ClassUtils.isPresent(name, classLoader))).toList();
    }

    /**
     * @param environment where {@code distlock.store} is read
     * @param classLoader where the store modules and their clients are looked up
     * @return the store the application uses, or empty when no registered store is present
     * @throws LockStoreSelectionException when {@code distlock.store} names no registered store, names one whose client
     *         is not on the class path, or is unset while several stores are present
     */
    static Optional<LockStoreRegistration> selected(Environment environment, @Nullable ClassLoader classLoader) {
        List<LockStoreRegistration> registered = registered(classLoader);
        List<LockStoreRegistration> present = present(registered, classLoader);
        String configured = environment.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            String id = configured.strip();
            LockStoreRegistration store = registered.stream().filter(s -> s.id().equalsIgnoreCase(id)).findFirst()
                    .orElseThrow(() -> new LockStoreSelectionException(PROPERTY + "=" + configured
                            + " names no lock store on the class path (present: " + ids(present)
                            + "); add that store's starter dependency", present.isEmpty()
                                    ? "Add the starter of the lock store '" + id + "' to the dependencies."
                                    : "Set " + PROPERTY + " to one of " + ids(present) + ", or add the starter of "
                                            + "the lock store '" + id + "' to the dependencies."));
            if (!present.contains(store)) {
                throw new LockStoreSelectionException(PROPERTY + "=" + configured + " but "
                        + store.requiredClassNames() + " is not on the class path; add the " + store.starter()
                        + " dependency", "Add the dependency " + store.starter() + (present.isEmpty() ? "."
                                : ", or set " + PROPERTY + " to one of " + ids(present) + "."));
            }
            return Optional.of(store);
        }
        if (present.size() > 1) {
            throw new LockStoreSelectionException("Several lock stores are on the class path (" + ids(present)
                    + "): set " + PROPERTY + " to the one to use", "Set " + PROPERTY + " to one of " + ids(present)
                    + " (for example " + PROPERTY + "=" + present.get(0).id() + " in application.properties), or "
                    + "remove the starters of the stores you do not use.");
        }
        return present.stream().findFirst();
    }

    static String ids(List<LockStoreRegistration> stores) {
        return stores.isEmpty() ? "none" : stores.stream().map(LockStoreRegistration::id)
                .collect(Collectors.joining(", "));
    }
}
