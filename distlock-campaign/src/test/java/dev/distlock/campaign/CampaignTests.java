package dev.distlock.campaign;

import dev.distlock.test.support.campaign.CampaignTopologies;
import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault campaign on every store topology on the class path (each store's test-jar provides its own,
 * {@link CampaignTopology.Provider}). In the build, a short run: 6 s of faults per store (about
 * a minute of faults in all). Long mode: {@code -Dcampaign.minutes=N} injects faults for N minutes per store.
 * {@code -Dcampaign.seed=S} replays a run (the seed is printed at the start and in every failure);
 * {@code -Dcampaign.stores=sentinel,redlock} runs only those stores. Each run's figures are appended to
 * {@code target/campaign-report.md}. {@code -Dcampaign.clock=beyond} injects clock faults beyond the drift margin
 * ({@link ClockFaults}) and reports the violations they cause instead of failing.
 */
class CampaignTests {

    private static final Logger log = LoggerFactory.getLogger(CampaignTests.class);

    /** Faults per store in the short run of the build. */
    static final Duration SHORT_RUN = Duration.ofSeconds(6);

    static long seed;

    static Duration faultPhase;

    @BeforeAll
    static void settings() {
        String configuredSeed = System.getProperty("campaign.seed", "");
        seed = configuredSeed.isBlank() ? System.nanoTime() : Long.parseLong(configuredSeed.trim());
        String minutes = System.getProperty("campaign.minutes", "");
        faultPhase = minutes.isBlank() ? SHORT_RUN : Duration.ofSeconds((long) (Double.parseDouble(minutes) * 60));
        log.info("Fault campaign: seed {}, {} s of faults per store (-Dcampaign.seed={} replays it)", seed,
                faultPhase.toSeconds(), seed);
    }

    /** @return every topology the stores' test-jars on the class path provide */
    static List<String> topologies() {
        return CampaignTopologies.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("topologies")
    void campaign(String store) throws Exception {
        String only = System.getProperty("campaign.stores", "");
        List<String> stores = Arrays.stream(only.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        Assumptions.assumeTrue(stores.isEmpty() || stores.contains(store),
                () -> "campaign on " + store + " SKIPPED: -Dcampaign.stores=" + only);
        CampaignResult result;
        try (CampaignTopology started = CampaignTopologies.start(store)) {
            result = new Campaign(started, seed, faultPhase).run();
        }
        report(result);
        if (ClockFaults.beyondMargin()) {
            // -Dcampaign.clock=beyond: clock faults the guarantees do not cover. The run measures the violations
            // they cause (here, in the report and with the nemesis' timeline) instead of failing on them.
            log.warn("campaign on {} with clock faults BEYOND the drift margin: {} violation(s), expected:\n  {}",
                    store, result.violations().size(), String.join("\n  ", result.violations()));
        }
        else {
            assertThat(result.violations())
                    .as("campaign on %s, seed %d (replay: -Dcampaign.seed=%d -Dcampaign.stores=%s)", store, seed,
                            seed, store)
                    .isEmpty();
        }
        assertThat(result.grants()).as("grants on %s", store).isPositive();
    }

    private static void report(CampaignResult result) throws IOException {
        Path file = Path.of("target", "campaign-report.md");
        Files.createDirectories(file.getParent());
        String label = ClockFaults.beyondMargin()
                ? "<!-- -Dcampaign.clock=beyond: clock faults beyond the drift margin, violations expected -->\n"
                : "";
        Files.writeString(file, label + result.markdownRow() + "\n" + "<!-- " + result.summary().replace("--", "- -")
                + " -->\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
