package dev.distlock.sample.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample page's API against two real instances (own web servers, one Redis, one H2 file database): the
 * instances register, a flash sale from one of them sends buyers to both, and the merged timeline and charts show
 * what happened on each.
 */
class DemoApiTests {

    private static final Logger log = LoggerFactory.getLogger(DemoApiTests.class);

    @TempDir
    static Path dataDir;

    private static SampleInstances instances;

    private static RestClient first;

    private static RestClient second;

    @BeforeAll
    static void startInstances() {
        instances = SampleInstances.start(2, dataDir);
        first = RestClient.create(instances.url(0));
        second = RestClient.create(instances.url(1));
    }

    @AfterAll
    static void stopInstances() {
        if (instances != null) {
            instances.close();
        }
    }

    @Test
    void everyInstanceRegistersItsBaseUrl() {
        List<Instance> live = List.of(get(second, "/api/demo/instances", Instance[].class));
        assertThat(live).filteredOn(Instance::live).extracting(Instance::baseUrl)
                .contains(instances.url(0), instances.url(1));
        assertThat(live).filteredOn(Instance::live).allMatch(Instance::lockEnabled)
                .allMatch(i -> i.label().startsWith(":"));
    }

    /** distlock.leader.groups: exactly one live instance leads the order consumer's group, and says so. */
    @Test
    void exactlyOneLiveInstanceLeadsTheOrderConsumer() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                List.of(get(first, "/api/demo/instances", Instance[].class))).filteredOn(Instance::live)
                .filteredOn(Instance::leads).hasSize(1));
    }

    @Test
    void thePageCanNameTheLockStore() {
        StoreInfo store = get(first, "/api/demo/store", StoreInfo.class);
        assertThat(store.id()).isEqualTo("redis");
        assertThat(store.description()).startsWith("RedisLockStore[");
    }

    @Test
    void aLockedFlashSaleSellsTheStockOverEveryInstanceAndItsHoldsNeverOverlap() {
        FlashSaleResult sale = post(first, "/api/demo/flash-sale?lock=true&product=2&buyers=200&concurrency=16",
                FlashSaleResult.class);
        assertThat(sale.instances()).hasSize(2);
        assertThat(sale.sold()).isEqualTo(100);
        assertThat(sale.soldOut()).isEqualTo(100);
        assertThat(sale.errors()).isEmpty();
        assertThat(sale.remaining()).isZero();
        assertThat(sale.oversold()).isZero();
        assertThat(sale.lockName()).isEqualTo("stock:2");

        // Each instance writes its holds in batches: read until all 200 buyers' holds are there.
        Timeline timeline = awaitHolds(sale, 200);
        List<Hold> holds = buyerHolds(timeline);
        assertThat(holds).extracting(Hold::instanceId).containsOnlyElementsOf(sale.instances())
                .contains(sale.instances().toArray(String[]::new));
        assertThat(timeline.overlaps()).isZero();
        assertThat(timeline.entries()).noneMatch(Hold::overlap);
        Hold previous = null;
        for (Hold hold : holds) {
            assertThat(hold.requestedAt()).isLessThanOrEqualTo(hold.acquiredAt());
            assertThat(hold.acquiredAt()).isLessThanOrEqualTo(hold.releasedAt());
            // The lock is granted before the body starts and released after it ends (and the commit).
            assertThat(hold.lockGrantedAt()).as("granted").isNotNull().isLessThanOrEqualTo(hold.acquiredAt());
            assertThat(hold.lockReleasedAt()).as("released").isNotNull().isGreaterThanOrEqualTo(hold.releasedAt());
            if (previous != null) {
                assertThat(hold.acquiredAt()).as("starts after the previous holder left")
                        .isGreaterThanOrEqualTo(previous.releasedAt());
                assertThat(hold.fencingToken()).as("fencing tokens increase in grant order")
                        .isGreaterThan(previous.fencingToken());
            }
            previous = hold;
        }
    }

    @Test
    void transfersOverEveryInstanceConserveTheTotal() {
        TransferRunResult run = post(second, "/api/demo/transfers?transfers=300&concurrency=16",
                TransferRunResult.class);
        assertThat(run.instances()).hasSize(2);
        assertThat(run.succeeded() + run.refused()).as("every transfer done or refused for funds").isEqualTo(300);
        assertThat(run.succeeded()).isPositive();
        assertThat(run.errors()).isEmpty();
        assertThat(run.totalBefore()).isEqualTo(4000);
        assertThat(run.totalAfter()).as("no money appeared or vanished").isEqualTo(4000);
        assertThat(run.conserved()).isTrue();
    }

    @Test
    void anUnlockedFlashSaleRunsTheSameCodeWithoutAnyLock() {
        FlashSaleResult sale = post(second, "/api/demo/flash-sale?lock=false&product=3&buyers=150&concurrency=16",
                FlashSaleResult.class);
        assertThat(sale.locked()).isFalse();
        assertThat(sale.sold() + sale.soldOut()).isEqualTo(150);
        // Lost updates can only leave too much stock, never too little; how much is oversold depends on timing.
        assertThat(sale.oversold()).isNotNegative();
        Timeline timeline = awaitHolds(sale, 150);
        log.info("Without the lock: sold {}, oversold {}, {} of {} holds overlapping", sale.sold(), sale.oversold(),
                timeline.overlaps(), buyerHolds(timeline).size());
        assertThat(buyerHolds(timeline)).allMatch(h -> h.fencingToken() == 0)
                .allMatch(h -> h.lockGrantedAt() == null && h.lockReleasedAt() == null);
    }

    @Test
    void theChartsShowTheWaitAndThroughputOfEveryInstance() {
        post(first, "/api/demo/flash-sale?lock=true&product=1&buyers=120&concurrency=12", FlashSaleResult.class);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            MetricSeries series = get(first, "/api/demo/metrics?seconds=60", MetricSeries.class);
            assertThat(series.times()).hasSize(61);
            for (int i = 0; i < instances.size(); i++) {
                String url = instances.url(i);
                String id = series.instances().stream().filter(inst -> inst.baseUrl().equals(url)).findFirst()
                        .orElseThrow().id();
                assertThat(series.throughput().get(id)).filteredOn(Objects::nonNull).anyMatch(v -> v > 0);
                assertThat(series.waitP99().get(id)).filteredOn(Objects::nonNull).isNotEmpty();
                assertThat(series.waitP50().get(id)).hasSameSizeAs(series.times());
            }
            assertThat(series.totalThroughput()).filteredOn(Objects::nonNull).anyMatch(v -> v > 0);
        });
    }

    @Test
    void oneFlashSaleAtATimeAcrossInstances() {
        LockHandle running = instances.context(1).getBean(LockService.class).lock("demo-flash-sale");
        try {
            ResponseEntity<String> refused = first.post().uri("/api/demo/flash-sale?lock=true&buyers=10").retrieve()
                    .onStatus(status -> true, (request, response) -> { })
                    .toEntity(String.class);
            assertThat(refused.getStatusCode().value()).isEqualTo(503);
        }
        finally {
            running.unlock();
        }
    }

    /**
     * The page's fail-closed demo on the instance that started the embedded Redis: while Redis is frozen every buyer
     * is answered 503 and nothing is sold; once it is thawed the next buyers are served. Three buyers per instance:
     * the two queued behind each instance's first attempt fail with it (before, each made an attempt of its own,
     * and the last waited three command timeouts).
     */
    @Test
    void buyersWhileRedisIsFrozenGet503AndNothingIsSoldThenTheNextOnesAreServed() {
        FailClosedResult run = post(first, "/api/demo/fail-closed?product=2&buyers=6", FailClosedResult.class);

        assertThat(run.instances()).hasSize(2);
        assertThat(run.whileFrozen()).as("every buyer while Redis was frozen").isEqualTo(Map.of("503", 6));
        assertThat(run.soldWhileFrozen()).isZero();
        assertThat(run.stockAfterFreeze()).isEqualTo(run.stockBefore());
        assertThat(run.afterThaw()).as("the buyers once Redis was back")
                .isEqualTo(Map.of("200", FailClosedRunner.BUYERS_AFTER_THAW));
        assertThat(run.stockAfter()).isEqualTo(run.stockBefore() - FailClosedRunner.BUYERS_AFTER_THAW);
        assertThat(run.frozenMillis()).as("frozen until the buyers' lock calls had timed out (one acquire's bound,"
                + " 3 s, not one per queued buyer)").isGreaterThanOrEqualTo(2_000).isLessThan(6_000);
    }

    /** The second instance joined the first one's Redis: nothing for it to freeze. */
    @Test
    void theFailClosedDemoIsRefusedByAnInstanceThatDidNotStartTheEmbeddedRedis() {
        ResponseEntity<String> refused = second.post().uri("/api/demo/fail-closed").retrieve()
                .onStatus(status -> true, (request, response) -> { })
                .toEntity(String.class);
        assertThat(refused.getStatusCode().value()).isEqualTo(409);
        assertThat(refused.getBody()).contains("Fail-closed demo not available here")
                .contains("did not start the embedded Redis");
    }

    private static Timeline awaitHolds(FlashSaleResult sale, int buyers) {
        String window = "/api/demo/timeline?lock=" + sale.lockName() + "&from=" + sale.startedAt() + "&to="
                + sale.finishedAt();
        return await().atMost(Duration.ofSeconds(10)).until(() -> get(first, window, Timeline.class),
                t -> buyerHolds(t).size() == buyers);
    }

    private static List<Hold> buyerHolds(Timeline timeline) {
        return timeline.entries().stream().filter(Hold::held).filter(h -> !h.outcome().equals("restock"))
                .sorted(Comparator.comparingLong(Hold::acquiredAt)).toList();
    }

    private static <T> T get(RestClient client, String uri, Class<T> type) {
        return client.get().uri(uri).retrieve().body(type);
    }

    private static <T> T post(RestClient client, String uri, Class<T> type) {
        return client.post().uri(uri).retrieve().body(type);
    }
}
