package dev.distlock.sample.demo;

import dev.distlock.sample.SampleAppTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The sample page's endpoints on one instance (MockMvc, no web server: so no instance registered): the unlocked
 * demo deduction answers like the real one, the timeline records both, and the page's scripts and uPlot are
 * served.
 */
@AutoConfigureMockMvc
class DemoEndpointTests extends SampleAppTestSupport {

    @Autowired
    private MockMvc mvc;

    @Autowired
    private JdbcClient jdbc;

    @BeforeEach
    void resetProducts() {
        jdbc.sql("UPDATE product SET stock = 100, last_fence = 0").update();
    }

    @Test
    void theUnlockedDeductionAnswersLikeTheLockedOne() throws Exception {
        mvc.perform(post("/api/demo/products/3/deduct-unlocked").param("quantity", "2"))
                .andExpect(status().isOk())
                .andExpect(content().json("{\"productId\":3,\"quantity\":2,\"remaining\":98}", true));
        mvc.perform(post("/api/demo/products/3/deduct-unlocked").param("quantity", "99")).andExpect(status().is(409));
        mvc.perform(post("/api/demo/products/3/deduct-unlocked").param("quantity", "0")).andExpect(status().is(400));
        mvc.perform(post("/api/demo/products/3/deduct-unlocked")).andExpect(status().is(400));
        mvc.perform(post("/api/demo/products/42/deduct-unlocked").param("quantity", "1")).andExpect(status().is(404));
    }

    @Test
    void theTimelineHasLockedHoldsWithTokensAndUnlockedOnesWithout() throws Exception {
        mvc.perform(post("/api/products/2/deduct").param("quantity", "1")).andExpect(status().isOk());
        mvc.perform(post("/api/demo/products/2/deduct-unlocked").param("quantity", "1")).andExpect(status().isOk());
        await().untilAsserted(() -> mvc.perform(get("/api/demo/timeline").param("lock", "stock:2")
                        .param("last", "60000"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.entries.length()").value(2))
                .andExpect(jsonPath("$.entries[0].outcome").value("sold"))
                .andExpect(jsonPath("$.entries[0].fencingToken").value(greaterThan(0L)))
                .andExpect(jsonPath("$.entries[1].fencingToken").value(0))
                .andExpect(jsonPath("$.overlaps").value(0)));
    }

    @Test
    void aFlashSaleNeedsARegisteredInstance() throws Exception {
        mvc.perform(post("/api/demo/flash-sale").param("lock", "true"))
                .andExpect(status().is(409))
                .andExpect(jsonPath("$.title").value("No instance to send buyers to"));
        mvc.perform(post("/api/demo/flash-sale").param("lock", "true").param("buyers", "5000"))
                .andExpect(status().is(400));
        mvc.perform(get("/api/demo/timeline").param("from", "2").param("to", "1")).andExpect(status().is(400));
    }

    @Test
    void servesThePageItsScriptsAndUplotFromTheWebJar() throws Exception {
        mvc.perform(get("/index.html")).andExpect(status().isOk())
                .andExpect(content().string(containsString("/webjars/uplot/dist/uPlot.iife.min.js")));
        mvc.perform(get("/webjars/uplot/dist/uPlot.iife.min.js")).andExpect(status().isOk());
        mvc.perform(get("/webjars/uplot/dist/uPlot.min.css")).andExpect(status().isOk());
        mvc.perform(get("/js/timeline.js")).andExpect(status().isOk());
        String page = mvc.perform(get("/js/page.js")).andExpect(status().isOk()).andReturn().getResponse()
                .getContentAsString();
        assertThat(page).contains("/api/demo/flash-sale", "'/actuator/distlock/' + name");
    }
}
