package dev.distlock.test.support.campaign;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link CampaignTopology.Provider} of one topology whose node specs start with one kind,
 * {@code <kind>|<field>|...}: it starts that topology and opens the specs of its kind, leaving every other spec to
 * the other providers. A store module with one topology extends it and writes only how a spec's fields open its
 * store.
 */
public abstract class SingleTopologyProvider implements CampaignTopology.Provider {

    private final String name;

    private final String kind;

    private final Supplier<CampaignTopology> topology;

    /**
     * @param name the topology's name, as reports and {@code -Dcampaign.stores} name it
     * @param kind the first field of its nodes' specs
     * @param topology starts the topology
     */
    protected SingleTopologyProvider(String name, String kind, Supplier<CampaignTopology> topology) {
        this.name = name;
        this.kind = kind;
        this.topology = topology;
    }

    @Override
    public final List<String> names() {
        return List.of(name);
    }

    @Override
    public final CampaignTopology start(String name) {
        return topology.get();
    }

    @Override
    public final Optional<CampaignTopology.Opened> open(String spec) {
        String[] fields = spec.split("\\|");
        return kind.equals(fields[0]) ? Optional.of(open(fields)) : Optional.empty();
    }

    /**
     * @param fields a spec of this provider's kind, split at {@code |}: the kind, then the topology's fields
     * @return the node's store
     */
    protected abstract CampaignTopology.Opened open(String[] fields);
}
