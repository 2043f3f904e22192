package io.lakestream.spark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.UUID;

/**
 * CPU time spent while a stream runs, per micro-batch with rows: the whole JVM, the query's stream execution thread
 * (Spark's driver-side work: offsets, planning, the checkpoint's offset and commit logs, progress; and our source's
 * calls), and the thread that commits the benchmark's changes. CPU time, unlike wall time, does not grow with the
 * machine's load (much), so it says how much work a batch is.
 */
final class StreamCpu {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long streamThread = -1;
    private long processStart;
    private long streamStart;
    private long writerStart;
    private long processNanos;
    private long streamNanos;
    private long writerNanos;
    private int batches;

    /** From now on, on the calling thread (the writer) and the stream execution thread of {@code query}. */
    void start(UUID query) {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("stream execution thread")
                    && thread.getName().contains(query.toString())) {
                streamThread = thread.threadId();
            }
        }
        processStart = os.getProcessCpuTime();
        streamStart = streamThread < 0 ? 0 : threads.getThreadCpuTime(streamThread);
        writerStart = threads.getCurrentThreadCpuTime();
    }

    void stop(int batchesWithRows) {
        processNanos = os.getProcessCpuTime() - processStart;
        streamNanos = streamThread < 0 ? 0 : threads.getThreadCpuTime(streamThread) - streamStart;
        writerNanos = threads.getCurrentThreadCpuTime() - writerStart;
        batches = Math.max(1, batchesWithRows);
    }

    void print() {
        System.out.printf(
                Locale.ROOT,
                "CPU ms per micro-batch with rows (%d batches): JVM %.1f, stream execution thread %.1f%s, writer %.1f, "
                        + "rest (tasks, GC, JIT, Spark's other threads) %.1f%n",
                batches,
                processNanos / 1e6 / batches,
                streamNanos / 1e6 / batches,
                streamThread < 0 ? " (thread not found)" : "",
                writerNanos / 1e6 / batches,
                (processNanos - streamNanos - writerNanos) / 1e6 / batches);
    }
}
