package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockInfo;
import dev.distlock.spi.line.LineHolders;
import dev.distlock.spi.line.LinePlace;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;

/**
 * Who holds a lock in etcd ({@link dev.distlock.spi.LockStore#describe}): the name's keys are its line; the holder
 * described ({@link LineHolders#describing}) is a key whose value is the holder identity (written with the key) and
 * whose create revision is the fencing token; its lease's time to live is the lease remaining (one more call). The
 * waiters are the other keys of the line.
 */
final class EtcdDescriptions {

    private final Client client;

    private final EtcdKeys keys;

    private final KeyLine line;

    EtcdDescriptions(Client client, EtcdKeys keys, KeyLine line) {
        this.client = client;
        this.keys = keys;
        this.line = line;
    }

    /** @return the holder, or empty when nobody holds the name */
    CompletableFuture<Optional<LockInfo>> describe(String name) {
        return client.getKVClient().get(keys.lockPrefix(name), KeyLine.oldestFirst().withKeysOnly(false)
                .isPrefix(true).build())
                .thenCompose(read -> {
                    List<KeyValue> found = read.getKvs();
                    List<LinePlace<ByteSequence>> inLine = found.stream().map(held -> line.place(name, held)).toList();
                    Optional<LineHolders.Described<ByteSequence>> described = LineHolders.describing(inLine);
                    if (described.isEmpty()) {
                        return CompletableFuture.completedFuture(Optional.<LockInfo>empty());
                    }
                    KeyValue holder = found.stream().filter(kv -> kv.getKey().equals(described.get().holder().id()))
                            .findFirst().orElseThrow();
                    return client.getLeaseClient().timeToLive(holder.getLease(), LeaseOption.DEFAULT)
                            .thenApply(ttl -> Optional.of(info(name, holder, Duration.ofSeconds(Math.max(0,
                                    ttl.getTTL())), described.get().waiters())));
                });
    }

    private static LockInfo info(String name, KeyValue key, Duration remaining, int waiters) {
        String holder = key.getValue().isEmpty() ? LockInfo.UNKNOWN_HOLDER
                : key.getValue().toString(StandardCharsets.UTF_8);
        return new LockInfo(name, holder, key.getCreateRevision(), remaining, waiters);
    }
}
