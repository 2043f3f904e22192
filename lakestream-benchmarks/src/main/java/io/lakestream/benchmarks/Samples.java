package io.lakestream.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** The measured rounds of one phase; reports medians, so one slow round (GC, disk flush) does not skew it. */
final class Samples {
    private final List<Double> seconds = new ArrayList<>();
    private final List<Double> commitSeconds = new ArrayList<>();
    private final List<Double> bytes = new ArrayList<>();

    void add(WriteResult result) {
        add(result.seconds(), result.commitSeconds(), result.dataBytes());
    }

    void add(double seconds, double commitSeconds, long bytes) {
        this.seconds.add(seconds);
        this.commitSeconds.add(commitSeconds);
        this.bytes.add((double) bytes);
    }

    double medianSeconds() {
        return median(seconds);
    }

    double medianCommitSeconds() {
        return median(commitSeconds);
    }

    double medianBytes() {
        return median(bytes);
    }

    double minSeconds() {
        return seconds.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    double maxSeconds() {
        return seconds.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
