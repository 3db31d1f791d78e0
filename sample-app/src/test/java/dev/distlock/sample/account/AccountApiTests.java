package dev.distlock.sample.account;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockTimeoutException;
import dev.distlock.sample.SampleAppTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The account API of the sample's second demo against a real Redis and the real locks: every status code, both
 * fencing tokens written (a lower one refused), and concurrent transfers in opposite directions that neither deadlock nor change the
 * total.
 */
@AutoConfigureMockMvc
class AccountApiTests extends SampleAppTestSupport {

    @Autowired
    private MockMvc mvc;

    @Autowired
    private JdbcClient jdbc;

    @Autowired
    private AccountService accounts;

    @BeforeEach
    void resetAccounts() {
        jdbc.sql("UPDATE account SET balance = 1000, last_fence = 0").update();
    }

    @Test
    void aTransferMovesTheAmountAndWritesBothFencingTokens() throws Exception {
        mvc.perform(post("/api/accounts/transfer?from=2&to=1&amount=300"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.from").value(2)).andExpect(jsonPath("$.to").value(1))
                .andExpect(jsonPath("$.fromBalance").value(700)).andExpect(jsonPath("$.toBalance").value(1300))
                .andExpect(jsonPath("$.fromFencingToken").value(greaterThan(0L)))
                .andExpect(jsonPath("$.toFencingToken").value(greaterThan(0L)));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM account WHERE id IN (1, 2) AND last_fence > 0").query(Long.class)
                .single()).as("each account's row has its own lock's token").isEqualTo(2);
        mvc.perform(get("/api/accounts")).andExpect(status().isOk())
                .andExpect(jsonPath("$.total").value(4000))
                .andExpect(jsonPath("$.accounts[0].balance").value(1300))
                .andExpect(jsonPath("$.accounts[1].balance").value(700));
    }

    @Test
    void aTransferWithATokenLowerThanTheLastWrittenIs503AndMovesNothing() throws Exception {
        // A newer holder of account 2's lock already wrote a higher token: this transfer's write is refused.
        jdbc.sql("UPDATE account SET last_fence = :fence WHERE id = 2").param("fence", Long.MAX_VALUE).update();
        problem(mvc.perform(post("/api/accounts/transfer?from=1&to=2&amount=10")), 503)
                .andExpect(header().exists("Retry-After"))
                .andExpect(jsonPath("$.title").value("Lock lost"))
                .andExpect(jsonPath("$.seenToken").value(Long.MAX_VALUE))
                .andExpect(jsonPath("$.fencingToken").value(greaterThan(0L)));
        mvc.perform(get("/api/accounts")).andExpect(jsonPath("$.accounts[0].balance").value(1000))
                .andExpect(jsonPath("$.accounts[1].balance").value(1000));
    }

    @Test
    void badTransfersAreProblems() throws Exception {
        problem(mvc.perform(post("/api/accounts/transfer?from=1&to=2&amount=0")), 400)
                .andExpect(jsonPath("$.parameter").value("amount"));
        problem(mvc.perform(post("/api/accounts/transfer?from=1&to=1&amount=5")), 400)
                .andExpect(jsonPath("$.parameter").value("to"));
        problem(mvc.perform(post("/api/accounts/transfer?from=1&to=42&amount=5")), 404)
                .andExpect(jsonPath("$.accountId").value(42));
        problem(mvc.perform(post("/api/accounts/transfer?from=3&to=4&amount=1001")), 409)
                .andExpect(jsonPath("$.accountId").value(3)).andExpect(jsonPath("$.available").value(1000));
        problem(mvc.perform(put("/api/accounts/1/balance?balance=-1")), 400);
        mvc.perform(get("/api/accounts")).andExpect(jsonPath("$.total").value(4000));
    }

    @Test
    void concurrentTransfersBothWaysNeitherDeadlockNorChangeTheTotal() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // Half of them 1 <-> 2 in both directions, the rest between random pairs.
            long from = (i % 4 == 0) ? 1 : (i % 4 == 1) ? 2 : 1 + ThreadLocalRandom.current().nextInt(4);
            long to = (i % 4 == 0) ? 2 : (i % 4 == 1) ? 1 : 1 + (from % 4);
            long amount = 1 + ThreadLocalRandom.current().nextInt(200);
            calls.add(pool.submit(() -> {
                // The shared context waits 300 ms, which 8 threads on 4 accounts can exceed on a busy machine: a
                // timed-out transfer is tried again. A deadlock would time out every try and fail the 60 s below.
                while (true) {
                    try {
                        accounts.transfer(from, to, amount);
                        return null;
                    }
                    catch (InsufficientFundsException ex) {
                        return null; // refused, nothing moved
                    }
                    catch (LockTimeoutException ex) {
                        // nothing moved either: try again
                    }
                }
            }));
        }
        try {
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        Accounts after = accounts.accounts();
        assertThat(after.total()).as("no money appeared or vanished").isEqualTo(4000);
        assertThat(after.accounts()).allSatisfy(account -> assertThat(account.balance()).isNotNegative());
    }

    private ResultActions problem(ResultActions result, int status) throws Exception {
        return result.andExpect(status().is(status))
                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                .andExpect(jsonPath("$.status").value(status))
                .andExpect(jsonPath("$.title").isNotEmpty());
    }
}
