package dev.distlock.benchmarks;

/** Workload F: the cost of {@code @DistributedLock} over the programmatic {@code LockService} call. */
final class AnnotationOverhead {

    private AnnotationOverhead() {
    }

    static void run(RedisTarget target, Settings settings, Results results, int repeat) {
        // written once the annotation is on main
    }
}
