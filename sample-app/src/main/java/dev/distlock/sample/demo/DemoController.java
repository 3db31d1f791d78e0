package dev.distlock.sample.demo;

import java.time.Duration;
import java.util.List;

import dev.distlock.sample.stock.Deduction;
import dev.distlock.sample.stock.InvalidRequestException;
import dev.distlock.sample.stock.StockService;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample page's API, under {@code /api/demo}: not part of the stock API (sample-app/README.md), which it leaves
 * unchanged.
 * <ul>
 * <li>{@code GET /api/demo/instances}: the instances, as timeline lanes;</li>
 * <li>{@code GET /api/demo/timeline?lock=stock:1[&from=µs&to=µs | &last=ms]}: the lock's merged history;</li>
 * <li>{@code GET /api/demo/metrics[?seconds=120]}: wait p50/p99 and throughput per second, per instance;</li>
 * <li>{@code POST /api/demo/flash-sale?lock=true|false[&product=1&stock=100&buyers=300&concurrency=24]}: one
 * flash sale over every live instance, with or without the lock;</li>
 * <li>{@code POST /api/demo/products/{id}/deduct-unlocked?quantity=N}: demo only, the deduction without the
 * lock;</li>
 * <li>{@code POST /api/demo/transfers[?transfers=400&concurrency=24]}: random transfers between the accounts over
 * every live instance, and the total before and after;</li>
 * <li>{@code POST /api/demo/fail-closed[?product=2&buyers=12]}: buyers sent to every live instance while the
 * embedded Redis is frozen, then a few once it is back (409 on an instance that did not start it).</li>
 * </ul>
 */
@RestController
@RequestMapping("/api/demo")
public class DemoController {

    private static final long DEFAULT_WINDOW_MICROS = 3_000_000;

    private final InstanceRegistry registry;

    private final TimelineRepository timeline;

    private final LockTimeline recorder;

    private final MetricSampler metrics;

    private final FlashSaleRunner flashSale;

    private final UnlockedStockService unlocked;

    private final TransferRunner transfers;

    private final FailClosedRunner failClosed;

    /**
     * @param registry the instances
     * @param timeline the merged history
     * @param recorder records the unlocked deductions
     * @param metrics the charts
     * @param flashSale runs the button's flash sales
     * @param unlocked the deduction without the lock
     * @param transfers runs the transfer demo
     * @param failClosed runs the fail-closed demo
     */
    public DemoController(InstanceRegistry registry, TimelineRepository timeline, LockTimeline recorder,
            MetricSampler metrics, FlashSaleRunner flashSale, UnlockedStockService unlocked,
            TransferRunner transfers, FailClosedRunner failClosed) {
        this.registry = registry;
        this.timeline = timeline;
        this.recorder = recorder;
        this.metrics = metrics;
        this.flashSale = flashSale;
        this.unlocked = unlocked;
        this.transfers = transfers;
        this.failClosed = failClosed;
    }

    /** @return every instance the history knows, in start order */
    @GetMapping("/instances")
    public List<Instance> instances() {
        return registry.all();
    }

    /**
     * @param lock the lock name
     * @param from window start, microseconds since the epoch
     * @param to window end, microseconds since the epoch (default: now)
     * @param last instead of {@code from}: the window is the last {@code last} milliseconds before {@code to}
     * @return the lock's entries in the window, overlaps marked
     */
    @GetMapping("/timeline")
    public Timeline timeline(@RequestParam(defaultValue = "stock:1") String lock,
            @RequestParam(required = false) Long from, @RequestParam(required = false) Long to,
            @RequestParam(required = false) Long last) {
        long end = to != null ? to : Micros.now();
        long start = from != null ? from : end - (last != null ? last * 1_000 : DEFAULT_WINDOW_MICROS);
        if (start > end) {
            throw new InvalidRequestException("from", "from must not be after to");
        }
        List<Hold> entries = timeline.window(lock, start, end);
        boolean truncated = entries.size() >= TimelineRepository.MAX_READ;
        List<Hold> marked = OverlapMarker.mark(entries);
        long overlaps = marked.stream().filter(Hold::overlap).count();
        return new Timeline(lock, start, end, registry.all(), marked, overlaps, truncated);
    }

    /**
     * @param seconds how far back, 10 to 900
     * @return the charts
     */
    @GetMapping("/metrics")
    public MetricSeries metrics(@RequestParam(defaultValue = "120") int seconds) {
        return metrics.series(Duration.ofSeconds(bounded("seconds", seconds, 10, 900)));
    }

    /**
     * @param lock whether the buyers use the lock
     * @param product the product to sell
     * @param stock the stock to reset it to first
     * @param buyers requests to send, one unit each
     * @param concurrency requests in flight at most
     * @return the counts; 503 while another run is going on
     */
    @PostMapping("/flash-sale")
    public FlashSaleResult flashSale(@RequestParam boolean lock, @RequestParam(defaultValue = "1") long product,
            @RequestParam(defaultValue = "100") int stock, @RequestParam(defaultValue = "300") int buyers,
            @RequestParam(defaultValue = "24") int concurrency) {
        return flashSale.run(lock, product, bounded("stock", stock, 0, 1_000_000),
                bounded("buyers", buyers, 1, FlashSaleRunner.MAX_BUYERS),
                bounded("concurrency", concurrency, 1, FlashSaleRunner.MAX_CONCURRENCY));
    }

    /**
     * @param transfers transfers to send
     * @param concurrency requests in flight at most
     * @return the counts and the totals; 503 while another run is going on
     */
    @PostMapping("/transfers")
    public TransferRunResult transfers(@RequestParam(defaultValue = "400") int transfers,
            @RequestParam(defaultValue = "24") int concurrency) {
        return this.transfers.run(bounded("transfers", transfers, 1, TransferRunner.MAX_TRANSFERS),
                bounded("concurrency", concurrency, 1, TransferRunner.MAX_CONCURRENCY));
    }

    /**
     * @param product the product the buyers buy
     * @param buyers buyers sent while Redis is frozen, all at once
     * @return the answers and the stock before and after; 409 on an instance that did not start the embedded Redis
     */
    @PostMapping("/fail-closed")
    public FailClosedResult failClosed(@RequestParam(defaultValue = "2") long product,
            @RequestParam(defaultValue = "12") int buyers) {
        return failClosed.run(product, bounded("buyers", buyers, 1, FailClosedRunner.MAX_BUYERS));
    }

    /**
     * Demo only: the deduction without the lock.
     *
     * @param id the product id
     * @param quantity units to buy, at least 1
     * @return the deduction; 409 when not enough stock, 400 for a bad quantity, 404 for an unknown product
     */
    @PostMapping("/products/{id}/deduct-unlocked")
    public Deduction deductUnlocked(@PathVariable long id, @RequestParam int quantity) {
        bounded("quantity", quantity, 1, Integer.MAX_VALUE);
        return recorder.track(StockService.lockName(id), "sold", () -> unlocked.deductWithoutLock(id, quantity));
    }

    /**
     * @param ex no instance to send buyers to
     * @return 409
     */
    @ExceptionHandler
    public ProblemDetail noInstance(IllegalStateException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
        problem.setTitle("No instance to send buyers to");
        return problem;
    }

    /**
     * @param ex the fail-closed demo cannot run here
     * @return 409
     */
    @ExceptionHandler
    public ProblemDetail failClosedRefused(FailClosedRefusedException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
        problem.setTitle("Fail-closed demo not available here");
        return problem;
    }

    private static int bounded(String parameter, int value, int min, int max) {
        if (value < min || value > max) {
            throw new InvalidRequestException(parameter,
                    parameter + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }
}
