package dev.distlock.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The contenders by their {@code --contenders} id, in report order, and those a run has without naming any. */
final class Contenders {

    /** The contender with batched scripts, which runs only when named. */
    private static final String BATCHED = "distlock-batched";

    private Contenders() {
    }

    /** @return every contender by id, in report order */
    static Map<String, LockContender> all() {
        Map<String, LockContender> all = new LinkedHashMap<>();
        all.put("distlock", new DistlockContender());
        all.put(BATCHED, new DistlockContender(true));
        all.put("textbook", new TextbookContender());
        all.put("redisson", new RedissonContender());
        all.put("rlr-spin", new RedisLockRegistryContender(RedisLockType.SPIN_LOCK));
        all.put("rlr-pubsub", new RedisLockRegistryContender(RedisLockType.PUB_SUB_LOCK));
        all.put("distlock-boot", new DistlockBootContender());
        all.put("distlock-annotation", new DistlockAnnotationContender());
        return all;
    }

    /** @return the ids a run has when {@code --contenders} is not given: all but {@value #BATCHED} */
    static List<String> defaults() {
        return all().keySet().stream().filter(id -> !id.equals(BATCHED)).toList();
    }
}
