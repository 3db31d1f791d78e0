package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.embedded.RedisServerGroup;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on Redlock over five real, independent Redis masters: "the store is down" means three of them
 * are (no majority left).
 */
class RedlockStoreContractTests extends LockStoreContractTests {

    static RedisServerGroup masters;

    @BeforeAll
    static void startMasters() {
        masters = RedisTopologies.sharedGroup();
    }

    @AfterEach
    void heal() {
        masters.heal();
    }

    static RedlockConfig config(String prefix) {
        return new RedlockConfig(List.of(masters.uris().split(",")), prefix, Duration.ofSeconds(2));
    }

    @Override
    protected LockStore newStore() {
        return RedlockStore.connect(config("redlock"));
    }

    @Override
    protected void stopStore() {
        for (int i = 0; i < 3; i++) {
            masters.kill(i);
        }
    }

    @Override
    protected void startStore() {
        masters.heal();
    }

    @Override
    protected void breakLease(String name) {
        for (int i = 0; i < masters.size(); i++) {
            masters.server(i).call("DEL", "redlock:{" + name + "}");
        }
    }
}
