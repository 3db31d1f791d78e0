package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every measured value of a run, by (measurement, contender, metric), one value per repeat. */
final class Results {

    private final Map<String, List<Double>> values = new LinkedHashMap<>();

    private final Map<String, String> notes = new LinkedHashMap<>();

    void add(String measurement, String contender, String metric, double value) {
        values.computeIfAbsent(key(measurement, contender, metric), k -> new ArrayList<>()).add(value);
    }

    void note(String measurement, String contender, String text) {
        // The first repeat's note stands for all (notes describe, the numbers are per repeat).
        notes.putIfAbsent(measurement + "|" + contender, text);
    }

    String note(String measurement, String contender) {
        return notes.get(measurement + "|" + contender);
    }

    boolean has(String measurement, String contender, String metric) {
        return values.containsKey(key(measurement, contender, metric));
    }

    /** @return the metric names recorded for the measurement and contender, in first-seen order */
    List<String> metrics(String measurement, String contender) {
        String prefix = measurement + "|" + contender + "|";
        return values.keySet().stream().filter(k -> k.startsWith(prefix)).map(k -> k.substring(prefix.length()))
                .toList();
    }

    List<Double> all(String measurement, String contender, String metric) {
        return values.getOrDefault(key(measurement, contender, metric), List.of());
    }

    double median(String measurement, String contender, String metric) {
        List<Double> list = new ArrayList<>(all(measurement, contender, metric));
        if (list.isEmpty()) {
            return Double.NaN;
        }
        list.sort(Double::compare);
        int n = list.size();
        return n % 2 == 1 ? list.get(n / 2) : (list.get(n / 2 - 1) + list.get(n / 2)) / 2;
    }

    double min(String measurement, String contender, String metric) {
        return all(measurement, contender, metric).stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double max(String measurement, String contender, String metric) {
        return all(measurement, contender, metric).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String key(String measurement, String contender, String metric) {
        return measurement + "|" + contender + "|" + metric;
    }
}
