package dev.distlock.sample.demo;

import dev.distlock.sample.stock.Deduction;
import dev.distlock.sample.stock.StockLedger;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Demo only: the same read-check-update as {@link dev.distlock.sample.stock.StockService#deduct} in the same kind
 * of transaction, but without {@code @DistributedLock}. It lets the page's one button show, on the same running
 * instances, what the lock prevents (instead of restarting them with {@code distlock.enabled=false}). Never use it
 * to sell anything.
 */
@Service
public class UnlockedStockService {

    private final StockLedger ledger;

    private final LockTimeline timeline;

    /**
     * @param ledger the read-check-update
     * @param timeline records the body, as for the locked method, so that the page can show the overlaps
     */
    public UnlockedStockService(StockLedger ledger, LockTimeline timeline) {
        this.ledger = ledger;
        this.timeline = timeline;
    }

    /**
     * Takes {@code quantity} units out of stock with no lock: concurrent callers read the same stock and overwrite
     * each other's writes, so more units are sold than there were.
     *
     * @param productId the product id
     * @param quantity units to take, at least 1
     * @return what was deducted and what is left
     */
    @Transactional
    public Deduction deductWithoutLock(long productId, int quantity) {
        timeline.entered();
        try {
            return ledger.takeOut(productId, quantity);
        }
        finally {
            timeline.left();
        }
    }
}
