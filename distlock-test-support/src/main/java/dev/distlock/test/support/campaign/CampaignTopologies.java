package dev.distlock.test.support.campaign;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds the stores' campaign topologies on the class path ({@link ServiceLoader} over
 * {@link CampaignTopology.Provider}), so that the campaign depends on the stores' test-jars and names no store.
 */
public final class CampaignTopologies {

    private CampaignTopologies() {
    }

    /** @return every provider on the class path, ordered by its first name (the class path does not fix an order) */
    public static List<CampaignTopology.Provider> providers() {
        List<CampaignTopology.Provider> providers = new ArrayList<>();
        ServiceLoader.load(CampaignTopology.Provider.class, CampaignTopologies.class.getClassLoader())
                .forEach(providers::add);
        providers.sort(Comparator.comparing(provider -> provider.names().get(0)));
        return providers;
    }

    /** @return the names of every topology on the class path */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        providers().forEach(provider -> names.addAll(provider.names()));
        return names;
    }

    /**
     * @param name one of {@link #names()}
     * @return the started topology
     * @throws IllegalArgumentException naming the known topologies when none has this name
     */
    public static CampaignTopology start(String name) {
        for (CampaignTopology.Provider provider : providers()) {
            if (provider.names().contains(name)) {
                return provider.start(name);
            }
        }
        throw new IllegalArgumentException("No campaign topology '" + name + "' on the class path; known: " + names());
    }

    /**
     * @param spec a node's spec
     * @return the node's store
     * @throws IllegalArgumentException naming the spec when no provider opens it
     */
    public static CampaignTopology.Opened open(String spec) {
        for (CampaignTopology.Provider provider : providers()) {
            Optional<CampaignTopology.Opened> opened = provider.open(spec);
            if (opened.isPresent()) {
                return opened.get();
            }
        }
        throw new IllegalArgumentException("No campaign topology on the class path opens the store spec '" + spec
                + "'; known topologies: " + names());
    }
}
