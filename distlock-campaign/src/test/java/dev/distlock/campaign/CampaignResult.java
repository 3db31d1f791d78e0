package dev.distlock.campaign;

import dev.distlock.test.support.campaign.FaultKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The figures of one campaign run on one topology, and its violations.
 *
 * @param store the topology
 * @param seed the seed ({@code -Dcampaign.seed} replays it)
 * @param faultPhase how long faults were injected
 * @param wallTime the whole run, start-up and liveness check included
 * @param grants grants recorded
 * @param lostReported grants whose holder was told the lease was lost
 * @param fixedHolds grants on a fixed lease whose work outlasted it
 * @param terms leadership terms ({@code granted} to {@code revoked}), checked with the grants
 * @param termsLost terms whose lease was reported lost before {@code revoked}
 * @param sharedGrants grants of the name shared by several holders (stores with permits)
 * @param severalHolds turns that held two names together
 * @param longestGapMillis the longest time in which no node was granted any lock
 * @param availablePercent the share of the fault phase's half seconds in which some node was granted a lock
 * @param failures failed calls by kind (timeouts include empty {@code tryLock}s)
 * @param faults faults injected by kind
 * @param recoveryMillis per fault kind, the times from healing it until every node was granted again
 * @param livenessMillis the time from the end of the faults until every node was granted again, -1 if never
 * @param nemesisErrors faults that could not be injected or healed (not violations of the lock, but reported)
 * @param violations safety, typing and liveness violations; empty when the run passed
 * @param guarantee what the topology guarantees
 */
record CampaignResult(String store, long seed, Duration faultPhase, Duration wallTime, long grants,
        long lostReported, long fixedHolds, long terms, long termsLost, long sharedGrants, long severalHolds,
        long longestGapMillis, double availablePercent, Map<FailureKind, Long> failures,
        Map<FaultKind, Long> faults, Map<FaultKind, List<Long>> recoveryMillis, long livenessMillis,
        List<String> nemesisErrors, List<String> violations, String guarantee) {

    long operations() {
        return grants + failures.values().stream().mapToLong(Long::longValue).sum();
    }

    String recoverySummary() {
        return recoveryMillis.entrySet().stream().map(entry -> {
            List<Long> sorted = entry.getValue().stream().sorted().toList();
            return entry.getKey() + " median " + sorted.get(sorted.size() / 2) + " max "
                    + sorted.get(sorted.size() - 1);
        }).collect(Collectors.joining("; "));
    }

    String summary() {
        return String.format("Campaign %s seed %d: %d s of faults (%d s in all), %d operations, %d grants (%d "
                + "reported lost, %d on a fixed lease outlasted by the work), %d leadership terms (%d lost), %d "
                + "grants of the shared name, %d holds of several names, longest time without a grant %d ms, "
                + "available %.1f %%, failures %s, faults %s, recovery ms {%s}, "
                + "liveness %d ms, nemesis errors %d%s, violations %d%s", store, seed, faultPhase.toSeconds(),
                wallTime.toSeconds(), operations(), grants, lostReported, fixedHolds, terms, termsLost,
                sharedGrants, severalHolds, longestGapMillis, availablePercent, failures, faults, recoverySummary(),
                livenessMillis, nemesisErrors.size(), nemesisErrors.isEmpty() ? "" : " " + nemesisErrors,
                violations.size(),
                violations.isEmpty() ? "" : ":\n  " + String.join("\n  ", violations));
    }

    /** @return a row of the table in docs/engineering/reliability.md */
    String markdownRow() {
        return "| " + store + " | " + faultPhase.toSeconds() + " s | " + operations() + " | " + grants + " (fixed "
                + fixedHolds + ", terms " + terms + ", shared " + sharedGrants + ", several " + severalHolds + ") | "
                + faults.entrySet().stream().map(e -> e.getKey().name().toLowerCase() + " " + e.getValue())
                        .collect(Collectors.joining(", "))
                + " | " + violations.size() + " | " + failures.get(FailureKind.UNAVAILABLE) + " | "
                + failures.get(FailureKind.TIMEOUT) + " | " + lostReported + " | " + longestGapMillis + " | "
                + String.format(java.util.Locale.ROOT, "%.1f %%", availablePercent) + " | "
                + recoverySummary() + "; liveness " + livenessMillis + " | " + seed + " |";
    }
}
