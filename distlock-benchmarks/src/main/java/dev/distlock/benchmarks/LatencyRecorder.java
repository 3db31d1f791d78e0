package dev.distlock.benchmarks;

import java.util.Arrays;
import java.util.List;

/** Latency samples of one thread (no locking); merged after the run to read percentiles. */
final class LatencyRecorder {

    private long[] samples = new long[1 << 14];

    private int size;

    void record(long nanos) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    int size() {
        return size;
    }

    /** @return a copy of the samples recorded so far */
    long[] samples() {
        return Arrays.copyOf(samples, size);
    }

    /** Adds every sample of another recorder. */
    void addAll(LatencyRecorder other) {
        for (int i = 0; i < other.size; i++) {
            record(other.samples[i]);
        }
    }

    /** Percentiles over several recorders, in microseconds. */
    static final class Percentiles {

        private final long[] sorted;

        Percentiles(List<LatencyRecorder> recorders) {
            int total = recorders.stream().mapToInt(LatencyRecorder::size).sum();
            sorted = new long[total];
            int at = 0;
            for (LatencyRecorder recorder : recorders) {
                System.arraycopy(recorder.samples, 0, sorted, at, recorder.size);
                at += recorder.size;
            }
            Arrays.sort(sorted);
        }

        double micros(double quantile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.ceil(quantile * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1000.0;
        }
    }
}
