package io.lakestream.spark;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Wall-clock and process CPU seconds of one benchmark step. On a shared machine the wall clock swings
 * with the other processes' load; the CPU this JVM spends (all threads, GC and JIT included; both
 * sides of a comparison run in this JVM, one at a time) swings much less.
 *
 * @param wallSeconds elapsed seconds
 * @param cpuSeconds CPU seconds of this process
 */
record BenchmarkTime(double wallSeconds, double cpuSeconds) {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static BenchmarkTime of(Runnable step) {
        long cpu = OS.getProcessCpuTime();
        long start = System.nanoTime();
        step.run();
        return new BenchmarkTime((System.nanoTime() - start) / 1e9, (OS.getProcessCpuTime() - cpu) / 1e9);
    }

    static double medianWall(BenchmarkTime[] times) {
        return median(
                Arrays.stream(times).mapToDouble(BenchmarkTime::wallSeconds).toArray());
    }

    static double medianCpu(BenchmarkTime[] times) {
        return median(
                Arrays.stream(times).mapToDouble(BenchmarkTime::cpuSeconds).toArray());
    }

    static double minWall(BenchmarkTime[] times) {
        return Arrays.stream(times)
                .mapToDouble(BenchmarkTime::wallSeconds)
                .min()
                .orElseThrow();
    }

    static double maxWall(BenchmarkTime[] times) {
        return Arrays.stream(times)
                .mapToDouble(BenchmarkTime::wallSeconds)
                .max()
                .orElseThrow();
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
