package dev.distlock.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Samples this instance's own meters once a second into the shared table {@code demo_metric_sample}, and shapes
 * the samples of every instance into the page's charts ({@link MetricSeries}).
 * <p>
 * The meters: {@code distlock.acquire} (tags {@code lock=stock}, {@code result=acquired}), whose count is the
 * acquisitions and whose client-side percentiles (configured in {@code application.properties} with
 * {@code management.metrics.distribution.percentiles.distlock.acquire=0.5,0.99}, over a window of a few seconds)
 * are the wait times; and {@code sample.deductions} ({@link LockTimeline}), whose count gives the throughput, also
 * of the calls that ran without a lock. Counts are stored cumulative, so the rates survive a late or missed sample.
 * Percentiles cannot be merged across instances, so the charts show one line per instance.
 */
@Component
public class MetricSampler {

    private static final Logger log = LoggerFactory.getLogger(MetricSampler.class);

    private final MeterRegistry meters;

    private final JdbcClient jdbc;

    private final InstanceRegistry instances;

    private long lastTrim;

    /**
     * @param meters this instance's meters
     * @param jdbc the shared database
     * @param instances this instance's id and the list of instances
     */
    public MetricSampler(MeterRegistry meters, JdbcClient jdbc, InstanceRegistry instances) {
        this.meters = meters;
        this.jdbc = jdbc;
        this.instances = instances;
    }

    /**
     * Writes the first sample, with the meters still at (about) zero, when the instance is ready. A rate needs two
     * samples: without this one, a sale that ends before the first scheduled sample would chart no throughput.
     */
    @EventListener(ApplicationReadyEvent.class)
    public void baseline() {
        sample();
    }

    /** Writes one sample of this instance's meters. */
    @Scheduled(fixedRate = 1000, initialDelay = 1000)
    public void sample() {
        long deductions = Math.round(meters.find("sample.deductions").counters().stream()
                .mapToDouble(Counter::count).sum());
        Timer acquire = meters.find("distlock.acquire").tag("lock", "stock").tag("result", "acquired").timer();
        Double p50 = null;
        Double p99 = null;
        long acquired = 0;
        if (acquire != null) {
            acquired = acquire.count();
            HistogramSnapshot snapshot = acquire.takeSnapshot();
            p50 = percentile(snapshot, 0.5);
            p99 = percentile(snapshot, 0.99);
        }
        long now = System.currentTimeMillis();
        try {
            jdbc.sql("INSERT INTO demo_metric_sample (instance_id, sampled_at, deductions, acquired, wait_p50_ms, "
                    + "wait_p99_ms) VALUES (:id, :at, :deductions, :acquired, :p50, :p99)")
                    .param("id", instances.id()).param("at", now).param("deductions", deductions)
                    .param("acquired", acquired).param("p50", p50).param("p99", p99)
                    .update();
            if (now - lastTrim > 30_000) {
                lastTrim = now;
                jdbc.sql("DELETE FROM demo_metric_sample WHERE sampled_at < :before")
                        .param("before", now - instances.history().toMillis()).update();
            }
        }
        catch (DataAccessException ex) {
            log.debug("Metric sample not written: {}", ex.getMessage());
        }
    }

    /**
     * @param span how far back
     * @return the charts of every instance over the last {@code span}
     */
    public MetricSeries series(Duration span) {
        long nowSecond = System.currentTimeMillis() / 1000;
        long firstSecond = nowSecond - span.toSeconds();
        List<Sample> samples = jdbc.sql("SELECT instance_id, sampled_at, deductions, acquired, wait_p50_ms, "
                + "wait_p99_ms FROM demo_metric_sample WHERE sampled_at >= :since ORDER BY instance_id, sampled_at")
                .param("since", (firstSecond - 5) * 1000)
                .query(Sample.class)
                .list();
        int points = (int) (nowSecond - firstSecond + 1);
        List<Long> times = new ArrayList<>(points);
        for (long s = firstSecond; s <= nowSecond; s++) {
            times.add(s);
        }
        Map<String, List<Double>> p50 = new LinkedHashMap<>();
        Map<String, List<Double>> p99 = new LinkedHashMap<>();
        Map<String, List<Double>> rate = new LinkedHashMap<>();
        Map<String, List<Sample>> byInstance = samples.stream()
                .collect(Collectors.groupingBy(Sample::instanceId, LinkedHashMap::new, Collectors.toList()));
        byInstance.forEach((id, own) -> {
            List<Double> w50 = nulls(points);
            List<Double> w99 = nulls(points);
            List<Double> r = nulls(points);
            for (int i = 1; i < own.size(); i++) {
                Sample prev = own.get(i - 1);
                Sample cur = own.get(i);
                int slot = (int) (cur.sampledAt() / 1000 - firstSecond);
                if (slot < 0 || slot >= points || cur.sampledAt() <= prev.sampledAt()) {
                    continue;
                }
                r.set(slot, Math.max(0, cur.deductions() - prev.deductions()) * 1000.0
                        / (cur.sampledAt() - prev.sampledAt()));
                if (cur.acquired() > prev.acquired()) {
                    w50.set(slot, cur.waitP50Ms());
                    w99.set(slot, cur.waitP99Ms());
                }
            }
            p50.put(id, w50);
            p99.put(id, w99);
            rate.put(id, r);
        });
        Map<String, Instance> known = instances.all().stream()
                .collect(Collectors.toMap(Instance::id, Function.identity()));
        List<Instance> shown = byInstance.keySet().stream()
                .map(id -> known.getOrDefault(id, new Instance(id, id, 0, true, 0, false, false)))
                .sorted((a, b) -> Long.compare(a.startedAt(), b.startedAt()))
                .toList();
        return new MetricSeries(shown, times, p50, p99, rate, total(rate.values(), points));
    }

    private static List<Double> total(Iterable<List<Double>> lines, int points) {
        List<Double> sum = nulls(points);
        for (List<Double> line : lines) {
            for (int i = 0; i < points; i++) {
                if (line.get(i) != null) {
                    sum.set(i, (sum.get(i) == null ? 0 : sum.get(i)) + line.get(i));
                }
            }
        }
        return sum;
    }

    private static List<Double> nulls(int n) {
        return new ArrayList<>(Collections.nCopies(n, null));
    }

    private static Double percentile(HistogramSnapshot snapshot, double which) {
        for (ValueAtPercentile value : snapshot.percentileValues()) {
            if (Math.abs(value.percentile() - which) < 1e-9) {
                return value.value(TimeUnit.MILLISECONDS);
            }
        }
        return null;
    }

    /** One row of {@code demo_metric_sample}. */
    record Sample(String instanceId, long sampledAt, long deductions, long acquired, Double waitP50Ms,
            Double waitP99Ms) {
    }
}
