package dev.distlock.sample.stock;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.sample.SampleAppTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.forwardedUrl;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Every status code of the sample's HTTP contract (sample-app/README.md), against a real Redis and the real lock.
 */
@AutoConfigureMockMvc
class ProductApiTests extends SampleAppTestSupport {

    @Autowired
    private MockMvc mvc;

    @Autowired
    private JdbcClient jdbc;

    @Autowired
    private LockService locks;

    private final ExecutorService otherNode = Executors.newSingleThreadExecutor();

    @BeforeEach
    void resetProducts() {
        jdbc.sql("UPDATE product SET stock = 100, last_fence = 0").update();
    }

    @AfterEach
    void stopOtherNode() throws InterruptedException {
        otherNode.shutdownNow();
        otherNode.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void getProductAnswersIdNameAndStock() throws Exception {
        mvc.perform(get("/api/products/1"))
                .andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_JSON))
                .andExpect(content().json("{\"id\":1,\"name\":\"Mechanical keyboard\",\"stock\":100}", true));
    }

    @Test
    void productsTwoAndThreeExistWithStock100() throws Exception {
        mvc.perform(get("/api/products/2")).andExpect(status().isOk()).andExpect(jsonPath("$.stock").value(100));
        mvc.perform(get("/api/products/3")).andExpect(status().isOk()).andExpect(jsonPath("$.stock").value(100));
    }

    @Test
    void getUnknownProductIs404Problem() throws Exception {
        problem(mvc.perform(get("/api/products/42")), 404).andExpect(jsonPath("$.productId").value(42));
    }

    @Test
    void deductAnswersProductIdQuantityAndRemaining() throws Exception {
        mvc.perform(post("/api/products/1/deduct").param("quantity", "1"))
                .andExpect(status().isOk())
                .andExpect(content().json("{\"productId\":1,\"quantity\":1,\"remaining\":99}", true));
        mvc.perform(post("/api/products/1/deduct").param("quantity", "9"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.remaining").value(90));
        assertThat(stock(1)).isEqualTo(90);
    }

    @Test
    void deductMoreThanTheStockIs409AndChangesNothing() throws Exception {
        problem(mvc.perform(post("/api/products/2/deduct").param("quantity", "101")), 409)
                .andExpect(jsonPath("$.requested").value(101))
                .andExpect(jsonPath("$.available").value(100));
        mvc.perform(post("/api/products/2/deduct").param("quantity", "100")).andExpect(status().isOk());
        problem(mvc.perform(post("/api/products/2/deduct").param("quantity", "1")), 409);
        assertThat(stock(2)).isZero();
    }

    @Test
    void deductWithMissingQuantityIs400() throws Exception {
        problem(mvc.perform(post("/api/products/1/deduct")), 400)
                .andExpect(jsonPath("$.detail").value(containsString("quantity")));
    }

    @Test
    void deductWithNonNumericQuantityIs400() throws Exception {
        problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "abc")), 400)
                .andExpect(jsonPath("$.detail").value(containsString("quantity")));
        problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "1.5")), 400);
    }

    @Test
    void deductWithQuantityBelowOneIs400() throws Exception {
        problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "0")), 400)
                .andExpect(jsonPath("$.parameter").value("quantity"));
        problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "-5")), 400);
        assertThat(stock(1)).isEqualTo(100);
    }

    @Test
    void deductFromUnknownProductIs404() throws Exception {
        problem(mvc.perform(post("/api/products/42/deduct").param("quantity", "1")), 404);
    }

    @Test
    void deductWhileAnotherNodeHoldsTheLockIs503AfterTheWaitTime() throws Exception {
        LockHandle held = otherNode.submit(() -> locks.lock("stock:1")).get(5, TimeUnit.SECONDS);
        try {
            long start = System.nanoTime();
            problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "1")), 503)
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(jsonPath("$.title").value("Lock not acquired in time"))
                    .andExpect(jsonPath("$.locks[0]").value("stock:1"));
            // It waited for the lock (distlock.wait-time=300ms) rather than failing at once.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            // Another product has another lock.
            mvc.perform(post("/api/products/2/deduct").param("quantity", "1")).andExpect(status().isOk());
        }
        finally {
            held.unlock();
        }
        assertThat(stock(1)).isEqualTo(100);
        mvc.perform(post("/api/products/1/deduct").param("quantity", "1")).andExpect(status().isOk());
    }

    @Test
    void deductWhileRedisIsDownIs503AndWorksAgainOnceRedisIsBack() throws Exception {
        redis().stop();
        try {
            problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "1")), 503)
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(jsonPath("$.title").value("Lock store unavailable"))
                    .andExpect(jsonPath("$.locks[0]").value("stock:1"));
        }
        finally {
            redis().start();
        }
        assertThat(stock(1)).isEqualTo(100);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                mvc.perform(post("/api/products/1/deduct").param("quantity", "1")).andExpect(status().isOk()));
        assertThat(stock(1)).isEqualTo(99);
    }

    @Test
    void deductWritesTheFencingTokenOfItsLock() throws Exception {
        mvc.perform(post("/api/products/1/deduct").param("quantity", "1")).andExpect(status().isOk());
        long first = lastFence(1);
        mvc.perform(post("/api/products/1/deduct").param("quantity", "1")).andExpect(status().isOk());
        assertThat(first).isPositive();
        assertThat(lastFence(1)).isGreaterThan(first);
    }

    @Test
    void deductWithATokenLowerThanTheLastWrittenIs503AndChangesNothing() throws Exception {
        // A newer holder already wrote a higher token: this request's lock counts as lost, its write is refused.
        jdbc.sql("UPDATE product SET last_fence = :fence WHERE id = 1").param("fence", Long.MAX_VALUE).update();
        problem(mvc.perform(post("/api/products/1/deduct").param("quantity", "1")), 503)
                .andExpect(jsonPath("$.title").value("Lock lost"))
                .andExpect(jsonPath("$.fencingToken").value(greaterThan(0L)));
        problem(mvc.perform(put("/api/products/1/stock").param("stock", "7")), 503);
        assertThat(stock(1)).isEqualTo(100);
        assertThat(lastFence(1)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void putStockAnswersTheProduct() throws Exception {
        mvc.perform(put("/api/products/3/stock").param("stock", "250"))
                .andExpect(status().isOk())
                .andExpect(content().json("{\"id\":3,\"name\":\"Espresso machine\",\"stock\":250}", true));
        mvc.perform(put("/api/products/3/stock").param("stock", "0")).andExpect(status().isOk());
        assertThat(stock(3)).isZero();
    }

    @Test
    void putNegativeStockIs400() throws Exception {
        problem(mvc.perform(put("/api/products/3/stock").param("stock", "-1")), 400)
                .andExpect(jsonPath("$.parameter").value("stock"));
        problem(mvc.perform(put("/api/products/3/stock").param("stock", "lots")), 400);
        problem(mvc.perform(put("/api/products/3/stock")), 400);
        assertThat(stock(3)).isEqualTo(100);
    }

    @Test
    void putStockOfUnknownProductIs404() throws Exception {
        problem(mvc.perform(put("/api/products/42/stock").param("stock", "5")), 404);
    }

    @Test
    void listsAllProducts() throws Exception {
        mvc.perform(get("/api/products"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.length()").value(3))
                .andExpect(jsonPath("$[0].id").value(1));
    }

    @Test
    void servesThePageAndTheActuatorEndpoints() throws Exception {
        mvc.perform(get("/")).andExpect(status().isOk()).andExpect(forwardedUrl("index.html"));
        mvc.perform(get("/index.html")).andExpect(status().isOk())
                .andExpect(content().string(containsString("Run flash sale")));
        mvc.perform(get("/actuator/health")).andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("UP"));
        mvc.perform(post("/api/products/1/deduct").param("quantity", "1")).andExpect(status().isOk());
        mvc.perform(get("/actuator/prometheus")).andExpect(status().isOk())
                .andExpect(content().string(
                        containsString("distlock_acquire_seconds_count{lock=\"stock\",result=\"acquired\"}")));
        mvc.perform(get("/actuator/distlock")).andExpect(status().isOk());
        mvc.perform(get("/actuator/health")).andExpect(jsonPath("$.components.distlock.status").value("UP"));
    }

    @Test
    void forceReleaseIsOffByDefaultAndChangesNothing() throws Exception {
        try (LockHandle held = locks.lock("stock:3")) {
            mvc.perform(delete("/actuator/distlock/stock:3")).andExpect(status().isForbidden())
                    .andExpect(jsonPath("$.error").value(containsString("distlock.admin.force-release=true")));
            assertThat(held.isHeld()).isTrue();
            mvc.perform(get("/actuator/distlock")).andExpect(jsonPath("$.locks[?(@.name == 'stock:3')]").exists());
        }
    }

    private ResultActions problem(ResultActions result, int status) throws Exception {
        return result.andExpect(status().is(status))
                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                .andExpect(jsonPath("$.status").value(status))
                .andExpect(jsonPath("$.title").isNotEmpty())
                .andExpect(jsonPath("$.detail").isNotEmpty());
    }

    private int stock(long id) {
        return jdbc.sql("SELECT stock FROM product WHERE id = :id").param("id", id).query(Integer.class).single();
    }

    private long lastFence(long id) {
        return jdbc.sql("SELECT last_fence FROM product WHERE id = :id").param("id", id).query(Long.class).single();
    }
}
