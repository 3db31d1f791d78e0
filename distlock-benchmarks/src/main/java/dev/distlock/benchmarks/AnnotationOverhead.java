package dev.distlock.benchmarks;

import java.util.Collection;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Workload F: runs {@link AnnotationOverheadBenchmark} with JMH (one fork per repeat) and records the results. */
final class AnnotationOverhead {

    private AnnotationOverhead() {
    }

    static void run(RedisTarget target, Settings settings, Results results, int repeat) throws Exception {
        int iterations = (int) Math.max(2, Math.min(5, settings.measure().toSeconds() / 2));
        Options options = new OptionsBuilder().include(AnnotationOverheadBenchmark.class.getName())
                .forks(1).warmupIterations(iterations).warmupTime(TimeValue.seconds(1))
                .measurementIterations(iterations).measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("-D" + AnnotationOverheadBenchmark.HOST + "=" + target.host(),
                        "-D" + AnnotationOverheadBenchmark.PORT + "=" + target.port())
                .verbosity(VerboseMode.SILENT).build();
        System.out.printf("[bench]   F annotation overhead (JMH, %d x 1 s per benchmark and store)%n", iterations);
        Collection<RunResult> runs = new Runner(options).run();
        double[] memory = new double[2];
        double[] redis = new double[2];
        for (RunResult run : runs) {
            String method = run.getParams().getBenchmark();
            int index = method.endsWith("annotated") ? 0 : 1;
            double score = run.getPrimaryResult().getScore();
            (run.getParams().getParam("store").equals("redis") ? redis : memory)[index] = score;
        }
        String contender = Report.DISTLOCK_ANNOTATION;
        results.add("F", contender, "annotated", memory[0]);
        results.add("F", contender, "programmatic", memory[1]);
        results.add("F", contender, "overhead", memory[0] - memory[1]);
        results.add("F", contender, "redis annotated", redis[0]);
        results.add("F", contender, "redis programmatic", redis[1]);
        results.add("F", contender, "redis overhead", redis[0] - redis[1]);
        results.note("F", contender, "JMH average time per call, single thread, one fork per repeat ("
                + iterations + " warm-up and " + iterations + " measured 1 s iterations). "
                + "`@DistributedLock(name = \"stock\", key = \"#productId\")` on a Spring bean versus "
                + "`lockService.runWithLock(\"stock:\" + productId, LockOptions.defaults(), action)`. "
                + "The first rows use a no-op `LockService` bean, so their difference is the annotation's own "
                + "cost (AOP proxy, cached operation lookup, SpEL key, name); the `redis` rows use the real "
                + "`StoreLockService` on Redis on the same server (the difference there is within Redis noise).");
    }
}
