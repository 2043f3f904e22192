package io.lakestream.sqltests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedClassLoader;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Lines up a JFR recording of {@code ./lakestream bench freshness --trace FILE} with the measured commits:
 * for each commit's window (from the write's return to the union read that saw it), the CPU samples of the
 * JVM by what ran (the Lakestream connector's queries, its background lake refresh, tiering, Spark, the rest of
 * Trino, ...) and the GC pause time inside the window; then the slowest quarter of the windows against the
 * fastest half. On a loaded machine wall time alone says little; this says what the slow reads overlapped.
 *
 * <p>Run (docs/benchmarks.md, "freshness"): record the benchmark with {@code
 * JDK_JAVA_OPTIONS='-XX:StartFlightRecording=filename=/tmp/fresh-%p.jfr,settings=profile'}, then {@code java -cp
 * sql-tests/target/test-classes io.lakestream.sqltests.FreshnessProfile RECORDING.jfr TRACE}.
 */
public final class FreshnessProfile {
    private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    private static final String GC_PAUSE = "jdk.GCPhasePause";
    /** Blocking events (above the recording's threshold, 10 ms with {@code settings=profile}): who waited on what. */
    private static final List<String> WAITS = List.of("jdk.ThreadPark", "jdk.JavaMonitorWait", "jdk.JavaMonitorEnter");

    private static final int WAIT_SITES_SHOWN = 25;
    /** Frames of threads idle in a pool, waiting for work: they park in every window alike. */
    private static final List<String> IDLE_SITES =
            List.of("idleJobPoll", "waitForTask", "MessageLoop.run", "SelectorManager", "ManagedSelector");

    private static final int SLOWEST_SHOWN = 15;

    private FreshnessProfile() {}

    /** One measured commit: its window in epoch milliseconds and the writer. */
    private record Window(long start, long millis, String writer) {
        long end() {
            return start + millis;
        }

        boolean contains(long epochMillis) {
            return epochMillis >= start && epochMillis <= end();
        }
    }

    /** What a window overlapped: CPU samples per kind of work, and GC pause milliseconds. */
    private static final class Overlap {
        final Map<String, Integer> samples = new TreeMap<>();
        /** Milliseconds of the window that threads spent blocked, by thread (digits dropped) and wait site. */
        final Map<String, Long> waits = new HashMap<>();

        long gcPauseMillis;

        void add(Overlap other) {
            other.samples.forEach((kind, count) -> samples.merge(kind, count, Integer::sum));
            other.waits.forEach((site, millis) -> waits.merge(site, millis, Long::sum));
            gcPauseMillis += other.gcPauseMillis;
        }

        @Override
        public String toString() {
            return "GC pauses %d ms, CPU samples %s".formatted(gcPauseMillis, samples);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: FreshnessProfile RECORDING.jfr TRACE");
            System.exit(2);
        }
        List<Window> windows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[1]))) {
            String[] fields = line.split(",");
            windows.add(new Window(Long.parseLong(fields[0]), Long.parseLong(fields[1]), fields[2]));
        }
        Map<Window, Overlap> overlaps = overlaps(Path.of(args[0]), windows);
        windows.sort(Comparator.comparingLong(Window::millis).reversed());
        for (Window window : windows.subList(0, Math.min(SLOWEST_SHOWN, windows.size()))) {
            System.out.printf("%5d ms after a %s commit: %s%n", window.millis(), window.writer(), overlaps.get(window));
        }
        Overlap slowest = new Overlap();
        Overlap fastest = new Overlap();
        long slowMillis = 0;
        long fastMillis = 0;
        int quarter = windows.size() / 4;
        int half = windows.size() / 2;
        for (int i = 0; i < windows.size(); i++) {
            if (i < quarter) {
                slowest.add(overlaps.get(windows.get(i)));
                slowMillis += windows.get(i).millis();
            } else if (i >= half) {
                fastest.add(overlaps.get(windows.get(i)));
                fastMillis += windows.get(i).millis();
            }
        }
        System.out.printf("slowest quarter (%d reads): %s%n", quarter, slowest);
        System.out.printf("fastest half (%d reads): %s%n", windows.size() - half, fastest);
        printWaits(slowest, slowMillis, fastest, fastMillis);
    }

    /**
     * Blocked time inside the windows per second of window, by thread and wait site, the sites that grow most from
     * the fastest half to the slowest quarter first. Threads idle in a pool (no frame outside the JDK, or a pool's
     * idle poll) are left out: they park in every window alike.
     */
    private static void printWaits(Overlap slowest, long slowMillis, Overlap fastest, long fastMillis) {
        Map<String, double[]> perSecond = new HashMap<>();
        slowest.waits.forEach((site, millis) ->
                perSecond.computeIfAbsent(site, key -> new double[2])[0] = millis * 1000.0 / Math.max(1, slowMillis));
        fastest.waits.forEach((site, millis) ->
                perSecond.computeIfAbsent(site, key -> new double[2])[1] = millis * 1000.0 / Math.max(1, fastMillis));
        System.out.println("blocked ms per second of window (slowest quarter / fastest half), by thread | wait site:");
        perSecond.entrySet().stream()
                .filter(entry ->
                        !entry.getKey().endsWith("|") && IDLE_SITES.stream().noneMatch(entry.getKey()::contains))
                .sorted(Comparator.comparingDouble(
                                (Map.Entry<String, double[]> entry) -> entry.getValue()[0] - entry.getValue()[1])
                        .reversed())
                .limit(WAIT_SITES_SHOWN)
                .forEach(entry -> System.out.printf(
                        "%8.1f / %6.1f  %s%n", entry.getValue()[0], entry.getValue()[1], entry.getKey()));
    }

    private static Map<Window, Overlap> overlaps(Path recording, List<Window> windows) throws IOException {
        long pluginLoader = lakestreamPluginLoader(recording);
        Map<Window, Overlap> overlaps = new HashMap<>();
        windows.forEach(window -> overlaps.put(window, new Overlap()));
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                String type = event.getEventType().getName();
                if (type.equals(GC_PAUSE)) {
                    long start = event.getStartTime().toEpochMilli();
                    long end = event.getEndTime().toEpochMilli();
                    for (Window window : windows) {
                        long overlap = Math.min(end, window.end()) - Math.max(start, window.start());
                        if (overlap > 0) {
                            overlaps.get(window).gcPauseMillis += overlap;
                        }
                    }
                } else if (WAITS.contains(type)) {
                    long start = event.getStartTime().toEpochMilli();
                    long end = event.getEndTime().toEpochMilli();
                    String site = null;
                    for (Window window : windows) {
                        long overlap = Math.min(end, window.end()) - Math.max(start, window.start());
                        if (overlap > 0) {
                            site = site == null ? waitSite(event) : site;
                            overlaps.get(window).waits.merge(site, overlap, Long::sum);
                        }
                    }
                } else if (type.equals(EXECUTION_SAMPLE)) {
                    long time = event.getStartTime().toEpochMilli();
                    for (Window window : windows) {
                        if (window.contains(time)) {
                            overlaps.get(window).samples.merge(kind(event, pluginLoader), 1, Integer::sum);
                            break;
                        }
                    }
                }
            }
        }
        return overlaps;
    }

    /**
     * The id of the class loader of the Lakestream Trino plugin (its Iceberg classes are its own copy; the stock
     * Iceberg plugin has another), or -1 if no sample ran its code.
     */
    private static long lakestreamPluginLoader(Path recording) throws IOException {
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals(EXECUTION_SAMPLE) || event.getStackTrace() == null) {
                    continue;
                }
                for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                    RecordedClass type = frame.getMethod().getType();
                    RecordedClassLoader loader = type.getClassLoader();
                    // the plugin's classes are on the test class path too (the benchmark's helpers load some)
                    if (type.getName().startsWith("io.lakestream.trino.")
                            && loader != null
                            && loader.getType() != null
                            && loader.getType().getName().equals("io.trino.server.PluginClassLoader")) {
                        return loader.getId();
                    }
                }
            }
        }
        return -1;
    }

    /**
     * Who waited where: the thread's name with its numbers dropped (a pool's threads together), and the first
     * frames of the stack outside the JDK's locking and thread classes, which say what it waited for (an exchange
     * long-poll, a task status fetch, a split batch, a pool waiting for work).
     */
    private static String waitSite(RecordedEvent event) {
        RecordedThread thread = event.getThread();
        String name = thread == null || thread.getJavaName() == null ? "?" : thread.getJavaName();
        StringBuilder site = new StringBuilder(name.replaceAll("[0-9]+", "N")).append(" |");
        RecordedStackTrace stack = event.getStackTrace();
        int shown = 0;
        for (RecordedFrame frame : stack == null ? List.<RecordedFrame>of() : stack.getFrames()) {
            String type = frame.getMethod().getType().getName();
            if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.")) {
                continue;
            }
            site.append(' ')
                    .append(type.substring(type.lastIndexOf('.') + 1))
                    .append('.')
                    .append(frame.getMethod().getName());
            if (++shown == 3) {
                break;
            }
        }
        return site.toString();
    }

    /** What a CPU sample was doing, from its thread and stack. */
    private static String kind(RecordedEvent sample, long pluginLoader) {
        RecordedThread thread = sample.getThread("sampledThread");
        String name = thread == null || thread.getJavaName() == null ? "" : thread.getJavaName();
        RecordedStackTrace stack = sample.getStackTrace();
        boolean plugin = false;
        boolean tiering = false;
        boolean spark = false;
        for (RecordedFrame frame : stack == null ? List.<RecordedFrame>of() : stack.getFrames()) {
            RecordedClass type = frame.getMethod().getType();
            tiering |= type.getName().startsWith("io.lakestream.tiering");
            spark |= type.getName().startsWith("org.apache.spark");
            RecordedClassLoader loader = type.getClassLoader();
            plugin |= loader != null && loader.getId() == pluginLoader;
        }
        if (name.startsWith("lakestream-lake-refresh") || (name.startsWith("iceberg-worker-pool") && plugin)) {
            return "lakestream-refresh";
        }
        if (tiering || name.startsWith("lakestream-tiering")) {
            return "tiering";
        }
        if (spark || name.startsWith("Executor task") || name.startsWith("dag-scheduler") || name.contains("spark")) {
            return "spark";
        }
        if (plugin) {
            // the Lakestream plugin's code (its own Iceberg copy included) on Trino's threads
            return "lakestream-query";
        }
        return name.equals("main") ? "main (writers, client)" : "trino-other";
    }
}
