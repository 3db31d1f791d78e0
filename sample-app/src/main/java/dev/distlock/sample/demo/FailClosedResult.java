package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;

/**
 * One run of the page's fail-closed demo: buyers sent while the embedded Redis was frozen, then a few once it was
 * back.
 *
 * @param instances the instances the buyers were spread over
 * @param productId the product bought
 * @param frozenMillis how long Redis was frozen: as long as the buyers sent meanwhile took to be answered
 * @param whileFrozen the answers while Redis was frozen, by status ("io-error" for none)
 * @param afterThaw the answers once Redis was back, by status
 * @param stockBefore the stock before the run
 * @param stockAfterFreeze the stock when Redis was back: equal to {@code stockBefore} when no buyer was served
 *        without the lock
 * @param stockAfter the stock after the buyers sent once Redis was back
 */
public record FailClosedResult(List<String> instances, long productId, long frozenMillis,
        Map<String, Integer> whileFrozen, Map<String, Integer> afterThaw, int stockBefore, int stockAfterFreeze,
        int stockAfter) {

    /** @return how many units were sold while Redis was frozen: 0 when the lock failed closed */
    public int soldWhileFrozen() {
        return stockBefore - stockAfterFreeze;
    }
}
