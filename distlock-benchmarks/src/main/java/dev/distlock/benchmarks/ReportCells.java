package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The cells of the report's tables: a contender's median with its [min–max] spread, ratios of medians, numbers
 * formatted to their size. Shared by {@link Report} and its section renderers.
 */
final class ReportCells {

    private final Results results;

    private final Consumer<String> line;

    /**
     * @param results the run's results
     * @param line where a rendered line goes
     */
    ReportCells(Results results, Consumer<String> line) {
        this.results = results;
        this.line = line;
    }

    /** @return the run's results */
    Results results() {
        return results;
    }

    /** @param text a line of the report */
    void line(String text) {
        line.accept(text);
    }

    /** @return the contender's name with its note, if any */
    String named(String measurement, String contender) {
        String note = results.note(measurement, contender);
        return contender + (note == null ? "" : " (" + note + ")");
    }

    /** @return median of the contender ÷ median of the reference, or "–" */
    String ratioCell(String measurement, String contender, String reference, String metric) {
        if (!results.has(measurement, reference, metric)) {
            return "–";
        }
        return fmt(results.median(measurement, contender, metric) / results.median(measurement, reference, metric));
    }

    void row(String measurement, String contender, String... metrics) {
        if (!results.has(measurement, contender, metrics[0])) {
            return;
        }
        String note = results.note(measurement, contender);
        StringBuilder row = new StringBuilder("| " + contender + (note == null ? "" : " (" + note + ")") + " |");
        for (String metric : metrics) {
            row.append(' ').append(cell(measurement, contender, metric)).append(" |");
        }
        line.accept(row.toString());
    }

    String cell(String measurement, String contender, String metric) {
        if (!results.has(measurement, contender, metric)) {
            return "–";
        }
        double median = results.median(measurement, contender, metric);
        if (results.all(measurement, contender, metric).size() == 1) {
            return fmt(median);
        }
        return fmt(median) + " [" + fmt(results.min(measurement, contender, metric)) + "–"
                + fmt(results.max(measurement, contender, metric)) + "]";
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        double abs = Math.abs(value);
        if (abs >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (abs >= 0.1 || abs == 0) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }

    static String nullToEmpty(String text) {
        return text == null ? "" : text;
    }

    /** @return each share's median, largest first, " / " between them */
    String shares(String measurement, String contender, int count) {
        List<String> parts = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            parts.add(fmt(results.median(measurement, contender, "share " + i)));
        }
        return String.join(" / ", parts);
    }

    static String yes(Boolean met) {
        return met == null ? "" : met ? "yes" : "**no**";
    }
}
