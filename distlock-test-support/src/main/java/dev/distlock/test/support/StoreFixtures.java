package dev.distlock.test.support;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;

/**
 * Finds the stores' fixtures on the class path ({@link ServiceLoader} over {@link StoreFixture.Provider}): a suite
 * that runs on every store depends on the stores' test-jars and names no store.
 */
public final class StoreFixtures {

    private StoreFixtures() {
    }

    /**
     * @return every provider on the class path, ordered by their first id (not by the class path's order, which a
     *         {@code lib/*} class path does not fix), so that suites and reports run the stores in one order
     */
    public static List<StoreFixture.Provider> providers() {
        List<StoreFixture.Provider> providers = new ArrayList<>();
        ServiceLoader.load(StoreFixture.Provider.class, StoreFixtures.class.getClassLoader()).forEach(providers::add);
        providers.sort(Comparator.comparing(provider -> provider.ids().get(0)));
        return providers;
    }

    /** @return the ids of every fixture on the class path */
    public static List<String> ids() {
        List<String> ids = new ArrayList<>();
        for (StoreFixture.Provider provider : providers()) {
            ids.addAll(provider.ids());
        }
        return ids;
    }

    /** @return the ids of every fixture the contract suite runs on, in the providers' order */
    public static List<String> contractIds() {
        List<String> ids = new ArrayList<>();
        for (StoreFixture.Provider provider : providers()) {
            ids.addAll(provider.contractIds());
        }
        return ids;
    }

    /** @return the ids of the set-ups the contract suite runs on only when named, in the providers' order */
    public static List<String> namedContractIds() {
        List<String> ids = new ArrayList<>();
        for (StoreFixture.Provider provider : providers()) {
            ids.addAll(provider.namedContractIds());
        }
        return ids;
    }

    /**
     * Starts the fixture with that id.
     *
     * @param id one of {@link #ids()} or of a provider's {@link StoreFixture.Provider#contractIds()} or
     *        {@link StoreFixture.Provider#namedContractIds()}
     * @return the started fixture, or why this machine cannot run it
     * @throws IllegalArgumentException naming the known ids when no provider has this one
     * @throws Exception when the server(s) could not be started
     */
    public static StoreFixture.Availability start(String id) throws Exception {
        for (StoreFixture.Provider provider : providers()) {
            if (provider.ids().contains(id) || provider.contractIds().contains(id)
                    || provider.namedContractIds().contains(id)) {
                return provider.start(id);
            }
        }
        throw new IllegalArgumentException("No store fixture '" + id + "' on the class path; known: " + ids()
                + " (a store's fixture is in its test-jar, listed in META-INF/services/"
                + StoreFixture.Provider.class.getName() + ")");
    }

    /**
     * The version of a library, for a fixture's {@link StoreFixture#setup()}.
     *
     * @param groupId the library's group id
     * @param artifactId its artifact id
     * @param anyClass a class of its jar
     * @return the version from the jar's Maven metadata or manifest, or {@code unknown}
     */
    public static String version(String groupId, String artifactId, Class<?> anyClass) {
        String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = anyClass.getResourceAsStream(resource)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty("version", "unknown");
            }
        }
        catch (Exception ex) {
            // fall back to the manifest
        }
        String version = anyClass.getPackage().getImplementationVersion();
        return version != null ? version : fromJarName(artifactId, anyClass);
    }

    /** The last resort, for jars with neither (jetcd's): {@code <artifactId>-<version>.jar}, as Maven names it. */
    private static String fromJarName(String artifactId, Class<?> anyClass) {
        try {
            String path = anyClass.getProtectionDomain().getCodeSource().getLocation().getPath();
            String file = path.substring(path.lastIndexOf('/') + 1);
            if (file.startsWith(artifactId + "-") && file.endsWith(".jar")) {
                return file.substring(artifactId.length() + 1, file.length() - ".jar".length());
            }
        }
        catch (RuntimeException ex) {
            // no code source: unknown
        }
        return "unknown";
    }
}
