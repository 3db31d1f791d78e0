package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What one flash sale run from the page came to.
 *
 * @param locked whether the buyers used the locked endpoint
 * @param lockName the lock of the product, e.g. {@code stock:1}, to read its timeline
 * @param productId the product sold
 * @param stockBefore the stock the product was reset to
 * @param buyers requests sent, one unit each
 * @param concurrency requests in flight at most
 * @param instances ids of the instances that received buyers, in start order
 * @param lockEnabledEverywhere false when an instance runs with {@code distlock.enabled=false}: then even the
 *        locked endpoint takes no lock there
 * @param startedAt microseconds since the epoch, before the stock was reset
 * @param finishedAt microseconds since the epoch, after the last answer
 * @param sold answers 200: units handed to a buyer
 * @param soldOut answers 409
 * @param errors every other answer, by HTTP status (or {@code io-error})
 * @param remaining the stock after the run
 * @param oversold units handed out that the stock never lost: {@code sold - (stockBefore - remaining)}
 */
public record FlashSaleResult(boolean locked, String lockName, long productId, int stockBefore, int buyers,
        int concurrency, List<String> instances, boolean lockEnabledEverywhere, long startedAt, long finishedAt,
        int sold, int soldOut, Map<String, Integer> errors, int remaining, int oversold) {

    /** @return how long the run took, milliseconds (also in the JSON) */
    @JsonProperty("durationMillis")
    public long durationMillis() {
        return (finishedAt - startedAt) / 1_000;
    }
}
