package dev.distlock.test.support.contract;

import java.util.List;
import java.util.stream.Stream;

import dev.distlock.test.support.StoreFixtures;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * The contract classes' arguments: one {@link ContractStore} per fixture id the providers on the class path list in
 * {@code contractIds()}, or only those named in the system property {@value #ONLY} (comma-separated, among them and
 * the providers' {@code namedContractIds()}, for example {@code -Ddistlock.contract.fixtures=redis} to run one set-up
 * of a module). Every
 * contract class of one test run shares a fixture: it is kept in the run's root store, started on first use and
 * stopped when the run ends.
 */
public final class ContractFixtures implements ArgumentsProvider {

    /** The system property that narrows the fixtures the contract runs on. */
    public static final String ONLY = "distlock.contract.fixtures";

    private static final ExtensionContext.Namespace FIXTURES = ExtensionContext.Namespace.create(
            ContractFixtures.class);

    @Override
    public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context) {
        ExtensionContext.Store shared = context.getRoot().getStore(FIXTURES);
        String only = System.getProperty(ONLY, "").trim();
        List<String> chosen = only.isEmpty() ? List.of() : List.of(only.split("\\s*,\\s*"));
        // Named, the set-ups that run only when named are chosen too (too slow to add to every build).
        List<String> known = Stream.concat(StoreFixtures.contractIds().stream(),
                StoreFixtures.namedContractIds().stream()).toList();
        return (chosen.isEmpty() ? StoreFixtures.contractIds() : known).stream()
                .filter(id -> chosen.isEmpty() || chosen.contains(id))
                .map(id -> Arguments.of(new ContractStore(id, shared)));
    }
}
