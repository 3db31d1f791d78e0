package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release channel's messages as {@code release.lua} publishes them, read into what the engine is told. A Redlock
 * master's "<name>\n" names no waiter: every waiter of the name tries now, not only after a hand-over window (which
 * an empty owner token read as a hand-over to nobody would make them wait for).
 */
class ReleaseMessagesTests {

    private final List<String> told = new CopyOnWriteArrayList<>();

    private final ReleaseMessages messages = new ReleaseMessages(new StoreEvents() {

        @Override
        public void released(String name, @Nullable String next) {
            told.add("released " + name + " " + next);
        }

        @Override
        public void leaseLost(String ownerToken) {
            told.add("lost " + ownerToken);
        }
    }, new HandOverEvents() {

        @Override
        public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
                Duration window) {
            told.add("handed " + name + " " + handedTo + " " + fencingToken + " " + handedAtMicros);
        }

        @Override
        public void kept(String name, String keptFor, Duration window) {
            told.add("kept " + name + " " + keptFor);
        }
    }, name -> true, Duration.ofMillis(100));

    @Test
    void aRedlockMastersReleaseWakesEveryWaiterOfTheName() {
        messages.dispatch("stock\n42\n");
        assertThat(told).containsExactly("released stock\n42 null");
    }

    @Test
    void aHandOverAndAPermitsReleaseNameTheirWaiter() {
        messages.dispatch("stock\nOWNER|aG9zdA\n1700000000000001\n1700000000000000");
        messages.dispatch("seats\nOWNER|aG9zdA");
        assertThat(told).containsExactly("handed stock OWNER 1700000000000001 1700000000000000", "kept seats OWNER");
    }

    @Test
    void thePermissionChecksEmptyMessageTellsNothing() {
        messages.dispatch("");
        assertThat(told).isEmpty();
    }
}
