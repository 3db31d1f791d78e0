package dev.distlock.sample.demo;

import java.util.List;
import java.util.Map;

/**
 * The sample page's charts, one point per second, ready for uPlot: every list is aligned with {@link #times()};
 * null where there is no value (no sample, or no lock acquired in that second).
 *
 * @param instances the instances that have samples, in start order
 * @param times seconds since the epoch
 * @param waitP50 per instance id: median lock wait of the stock locks, milliseconds
 * @param waitP99 per instance id: 99th percentile of the lock wait, milliseconds
 * @param throughput per instance id: deduct calls per second, whatever their outcome
 * @param totalThroughput all instances together: deduct calls per second
 */
public record MetricSeries(List<Instance> instances, List<Long> times, Map<String, List<Double>> waitP50,
        Map<String, List<Double>> waitP99, Map<String, List<Double>> throughput, List<Double> totalThroughput) {
}
