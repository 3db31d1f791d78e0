package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;

/**
 * One run of the page's transfer demo.
 *
 * @param instances the instances the transfers were spread over
 * @param transfers transfers sent
 * @param concurrency requests in flight at most
 * @param succeeded transfers done (200)
 * @param refused transfers refused for lack of funds (409): nothing moved
 * @param errors other answers, by status ("io-error" for none)
 * @param totalBefore the total of the balances before the run
 * @param totalAfter the total after it
 * @param elapsedMillis how long the run took
 */
public record TransferRunResult(List<String> instances, int transfers, int concurrency, int succeeded, int refused,
        Map<String, Integer> errors, long totalBefore, long totalAfter, long elapsedMillis) {

    /** @return whether the total stayed the same: no money appeared or vanished */
    public boolean conserved() {
        return totalBefore == totalAfter;
    }
}
