package dev.distlock.test.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The history check of a name shared by several holders ({@code LockOptions.withPermits}), what
 * {@code LockOptions.withPermits} promises:
 * <ul>
 * <li>at no moment more holders count on the name than it has permits (a holder counts on it from the start of its
 * work until it was told the lease was lost, or the end of its work);</li>
 * <li>tokens are unique, and a grant whose acquire was called after another grant's work began (so after that grant
 * returned) has the higher token. Two waiters let in at once may return in either order, so nothing is said of
 * grants whose acquires overlap.</li>
 * </ul>
 */
final class PermitCheck {

    private final int permits;

    private final Predicate<LockHistory.Grant> reportedLost;

    PermitCheck(int permits, Predicate<LockHistory.Grant> reportedLost) {
        this.permits = permits;
        this.reportedLost = reportedLost;
    }

    /**
     * @param grants one name's grants, in the order their work started
     * @return the problems found, empty when none
     */
    List<String> problems(List<LockHistory.Grant> grants) {
        List<String> problems = new ArrayList<>();
        Map<Long, LockHistory.Grant> byToken = new HashMap<>();
        for (int i = 0; i < grants.size(); i++) {
            LockHistory.Grant later = grants.get(i);
            LockHistory.Grant sameToken = byToken.putIfAbsent(later.fencingToken(), later);
            if (sameToken != null) {
                problems.add("two grants with one token: " + sameToken + " and " + later);
            }
            List<LockHistory.Grant> countedOn = new ArrayList<>();
            for (int j = 0; j < i; j++) {
                LockHistory.Grant earlier = grants.get(j);
                if (earlier.countedOnUntil(reportedLost.test(earlier)) > later.startNanos()) {
                    countedOn.add(earlier);
                }
                if (later.calledNanos() > earlier.startNanos() && later.fencingToken() <= earlier.fencingToken()) {
                    problems.add("token not above that of a grant whose work began before this acquire was called: "
                            + earlier + " then " + later);
                }
            }
            if (countedOn.size() >= permits) {
                problems.add("more than " + permits + " holders counted on the name at once: " + countedOn
                        + " and " + later);
            }
        }
        return problems;
    }
}
