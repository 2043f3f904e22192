package io.lakestream.sqltests.soak;

import static io.lakestream.sqltests.soak.Violations.Kind.FINAL_TIERING;
import static io.lakestream.sqltests.soak.Violations.Kind.NO_PROGRESS;
import static io.lakestream.sqltests.soak.Violations.Kind.READ_ERROR;
import static io.lakestream.sqltests.soak.Violations.Kind.TIERING_STOPPED;

import io.lakestream.sqltests.soak.Child.Replied;
import io.lakestream.sqltests.soak.SoakMessage.Command;
import io.lakestream.sqltests.soak.SoakMessage.Reply;
import io.lakestream.sqltests.soak.SoakMessage.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One soak run: sets up the warehouse (on its own tmpfs) and the tables, starts every slot in its own
 * JVM (Trino, Spark, Java writers, two tiering services), injects the planned faults while the slots
 * run their operations, then stops everything, runs a final tiering pass in a fresh process, reads every
 * table through every view in fresh Trino and Spark processes, and checks the reads against the history.
 * See docs/reliability-soak.md.
 */
final class SoakRun {
    // generous: on a machine shared with other builds a Trino runner took 3 min to start (10 s when idle)
    private static final Duration START_TIMEOUT = Duration.ofMinutes(8);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration FINAL_TIERING_TIMEOUT = Duration.ofMinutes(10);
    private static final long TIERING_INTERVAL_MILLIS = 1_000;
    private static final long SWEEP_INTERVAL_MILLIS = 3_000;
    private static final Duration PROGRESS_TIMEOUT = Duration.ofMinutes(10);

    private final SoakOptions options;
    private final History history;
    private final Violations violations = new Violations();
    private final Tally tally = new Tally();
    private final SoakChecker checker = new SoakChecker(violations, tally);
    private final Path logs;
    private final Map<String, Long> lastTieringSuccessNanos = new ConcurrentHashMap<>();
    private final List<String> skews = new ArrayList<>();
    private final List<ChildSlot> allSlots = new ArrayList<>();
    private FaultInjector faults;

    SoakRun(SoakOptions options) throws IOException {
        this.options = options;
        Files.createDirectories(options.output());
        this.logs = Files.createDirectories(options.output().resolve("logs"));
        this.history = new History(options.output().resolve("history.jsonl"));
    }

    SoakReport run() throws Exception {
        Path warehouse = options.output().resolve("warehouse");
        Optional<Tmpfs> disk =
                options.diskFull() ? Optional.of(Tmpfs.mount(warehouse, options.tmpfsMegabytes())) : Optional.empty();
        if (disk.isEmpty()) {
            Files.createDirectories(warehouse);
        }
        Thread cleanup = new Thread(() -> allSlots.forEach(ChildSlot::killQuietly));
        Runtime.getRuntime().addShutdownHook(cleanup);
        long startNanos = System.nanoTime();
        try {
            runSlots(warehouse, disk);
            finalChecks(warehouse);
            return report(System.nanoTime() - startNanos);
        } finally {
            allSlots.forEach(ChildSlot::killQuietly);
            history.close();
            if (disk.isPresent()) {
                if (!violations.isEmpty()) {
                    Path copy = Files.createDirectories(options.output().resolve("warehouse-copy"));
                    disk.get().copyTo(copy);
                }
                disk.get().close();
            }
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
    }

    private void runSlots(Path warehouse, Optional<Tmpfs> disk) throws Exception {
        Random random = new Random(options.seed());
        AtomicLong operationIds = new AtomicLong();
        Map<String, ChildSlot> killable = new LinkedHashMap<>();
        List<PlannedSlot> operationSlots = new ArrayList<>();
        List<ServiceSlot> serviceSlots = new ArrayList<>();

        ChildSlot trino = slot("trino", new ChildJvm("trino", "1536m", List.of()), warehouse, ignored -> {});
        ChildSlot spark = slot("spark", new ChildJvm("spark", "1536m", List.of()), warehouse, ignored -> {});
        operationSlots.add(new PlannedSlot(trino, Workload.trino("trino", random.nextLong(), 10), random.nextLong()));
        operationSlots.add(new PlannedSlot(spark, Workload.spark("spark", random.nextLong(), 20), random.nextLong()));
        operationSlots.add(new PlannedSlot(
                trino, Workload.counterClient("trino-session2", random.nextLong(), View.TRINO), random.nextLong()));
        operationSlots.add(new PlannedSlot(
                spark, Workload.counterClient("spark-session2", random.nextLong(), View.SPARK), random.nextLong()));
        for (int i = 0; i < options.javaWriters(); i++) {
            String name = "writer-" + i;
            long bound = options.maxWriterSkew().toMillis();
            long skew = bound == 0 ? 0 : random.nextLong(-bound, bound + 1);
            skews.add("%s %+d s".formatted(name, skew / 1000));
            ChildSlot writer = slot(
                    name,
                    new ChildJvm("writer", "384m", List.of("--clock-offset-ms", Long.toString(skew))),
                    warehouse,
                    ignored -> {});
            operationSlots.add(new PlannedSlot(
                    writer,
                    Workload.javaWriter(
                            name, random.nextLong(), i, options.maxWriterHold().toMillis()),
                    random.nextLong()));
        }
        Duration ahead = options.tieringClockAhead();
        for (int i = 0; i < 2; i++) {
            String name = "tiering-" + i;
            ChildSlot tiering = slot(
                    name,
                    new ChildJvm(
                            "tiering",
                            "512m",
                            List.of(
                                    "--clock-offset-ms", Long.toString(ahead.toMillis()),
                                    "--orphan-age-ms",
                                            Long.toString(options.orphanAge()
                                                    .plus(ahead)
                                                    .toMillis()),
                                    "--retention-ms",
                                            Long.toString(options.retention()
                                                    .plus(ahead)
                                                    .toMillis()),
                                    "--interval-ms", Long.toString(TIERING_INTERVAL_MILLIS),
                                    "--sweep-interval-ms", Long.toString(SWEEP_INTERVAL_MILLIS))),
                    warehouse,
                    event -> tieringEvent(name, event));
            serviceSlots.add(new ServiceSlot(tiering));
            killable.put(name, tiering);
        }
        operationSlots.forEach(planned -> killable.put(planned.slot().name(), planned.slot()));
        skews.add("tiering services %+d s (effective orphan age %d s, retention %d s)"
                .formatted(
                        ahead.toSeconds(),
                        options.orphanAge().toSeconds(),
                        options.retention().toSeconds()));

        // every child is started (and the tables created) before the clock of the run starts
        startAll(killable.values(), trino);

        FaultPlan plan = FaultPlan.draw(
                random,
                options.duration(),
                options.meanKillGap(),
                killable.keySet().stream()
                        .filter(name -> !name.equals("trino") && !name.equals("spark"))
                        .toList(),
                List.of("trino", "spark"),
                options.engineKills(),
                options.diskFull() ? options.diskFullEpisodes() : 0);
        history.note("soak", "plan", plan.toString());
        faults = new FaultInjector(plan, killable, disk, history, tally);
        // operation slots ask the fault injector whether a failure happened while the disk was full
        List<OperationSlot> slots = operationSlots.stream()
                .map(planned -> new OperationSlot(
                        planned.slot(),
                        planned.workload(),
                        planned.seed(),
                        operationIds,
                        history,
                        checker,
                        violations,
                        tally,
                        faults,
                        options.operationTimeout()))
                .toList();

        List<Thread> threads = new ArrayList<>();
        for (ServiceSlot service : serviceSlots) {
            threads.add(
                    Thread.ofPlatform().name("soak-" + service.slot().name()).start(service));
        }
        for (OperationSlot slot : slots) {
            threads.add(Thread.ofPlatform().name("soak-" + slot.name()).start(slot));
        }
        faults.start();
        Thread.sleep(options.duration().toMillis());
        faults.stop();
        history.note("soak", "faults stopped", "");
        awaitProgress(slots, System.nanoTime());
        history.note("soak", "stopping", "");
        slots.forEach(OperationSlot::stop);
        serviceSlots.forEach(ServiceSlot::stop);
        for (Thread thread : threads) {
            thread.join(options.operationTimeout().plus(START_TIMEOUT).toMillis());
        }
        for (ServiceSlot service : serviceSlots) {
            service.slot().stop(STOP_GRACE);
        }
        for (OperationSlot slot : slots) {
            // an engine's second client stops the same child again: a no-op
            slot.slot().stop(STOP_GRACE);
        }
    }

    /** Starts every child at once and creates the tables through the Trino slot's first incarnation. */
    private void startAll(Iterable<ChildSlot> slots, ChildSlot trino) throws InterruptedException {
        List<Thread> starting = new ArrayList<>();
        for (ChildSlot slot : slots) {
            if (slot != trino) {
                starting.add(
                        Thread.ofPlatform().name("soak-start-" + slot.name()).start(() -> startOrEmpty(slot)));
            }
        }
        Child child =
                trino.start().orElseThrow(() -> new IllegalStateException("Trino did not start; see " + trino.log()));
        for (String statement : SoakTables.create()) {
            Child.Result result = child.call(Command.sql(0, statement), options.operationTimeout());
            if (!(result instanceof Replied(Reply reply)) || reply.status() != Status.OK) {
                throw new IllegalStateException("setup failed: %s: %s".formatted(statement, describe(result)));
            }
        }
        for (Thread thread : starting) {
            thread.join();
        }
    }

    /**
     * Liveness after the faults: the slots go on until every operation slot has had a write acknowledged
     * and every tiering service finished a round since the faults stopped (the disk was freed, the last
     * kill is over). A catalog left locked by a killed process, or a service that gave up after the disk
     * filled, shows here. The wait is bounded; how long it takes depends on the machine, not its outcome.
     */
    private void awaitProgress(List<OperationSlot> slots, long faultsStoppedNanos) throws InterruptedException {
        long deadline = System.nanoTime() + PROGRESS_TIMEOUT.toNanos();
        List<String> waiting;
        do {
            waiting = new ArrayList<>();
            for (OperationSlot slot : slots) {
                if (!slot.acknowledgedWriteAfter(faultsStoppedNanos)) {
                    waiting.add(slot.slot().name() + " (no write acknowledged; see "
                            + slot.slot().log() + ")");
                }
            }
            for (int i = 0; i < 2; i++) {
                String name = "tiering-" + i;
                if (lastTieringSuccessNanos.getOrDefault(name, 0L) <= faultsStoppedNanos) {
                    waiting.add(name + " (no tiering round finished; see " + logs.resolve(name + ".log") + ")");
                }
            }
            if (waiting.isEmpty()) {
                tally.add("ms to progress after the faults", (System.nanoTime() - faultsStoppedNanos) / 1_000_000);
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        for (String slot : waiting) {
            violations.add(
                    NO_PROGRESS,
                    1,
                    "%s in the %d s after the faults stopped".formatted(slot, PROGRESS_TIMEOUT.toSeconds()));
        }
    }

    /** A final tiering pass in a fresh process, then every view of every table in fresh engines. */
    private void finalChecks(Path warehouse) throws Exception {
        ChildSlot tier = slot("final-tier", new ChildJvm("final-tier", "1024m", List.of()), warehouse, ignored -> {});
        Optional<Child> tiering = tier.start();
        if (tiering.isPresent()) {
            Child.Result result = tiering.get()
                    .call(
                            new Command(1, SoakMessage.Action.TIER, null, null, null, null, null, 0),
                            FINAL_TIERING_TIMEOUT);
            if (!(result instanceof Replied(Reply reply)) || reply.status() != Status.OK) {
                violations.addFinal(
                        FINAL_TIERING,
                        1,
                        "the final tiering pass failed: %s; see %s".formatted(describe(result), tier.log()));
            }
            tier.stop(STOP_GRACE);
        }
        ChildSlot trino = slot("check-trino", new ChildJvm("trino", "1536m", List.of()), warehouse, ignored -> {});
        ChildSlot spark = slot("check-spark", new ChildJvm("spark", "1536m", List.of()), warehouse, ignored -> {});
        // both fresh engines start at once (their start-ups overlap); their reads run one engine after the other
        CompletableFuture<Optional<Child>> sparkStarted = CompletableFuture.supplyAsync(
                () -> startOrEmpty(spark),
                runnable -> Thread.ofPlatform().name("soak-start-check-spark").start(runnable));
        Map<ChildSlot, Optional<Child>> started = Map.of(trino, trino.start(), spark, sparkStarted.join());
        for (ChildSlot engine : List.of(trino, spark)) {
            Optional<Child> child = started.get(engine);
            if (child.isEmpty()) {
                continue;
            }
            List<String> layers =
                    engine == trino ? List.of(View.UNION, View.LAKE, View.STOCK) : List.of(View.UNION, View.LAKE);
            String name = engine == trino ? View.TRINO : View.SPARK;
            long id = 1;
            for (String table : List.of(SoakTables.EVENTS, SoakTables.ITEMS, SoakTables.COUNTERS)) {
                for (String layer : layers) {
                    View view = new View(name, layer, table);
                    Child.Result result = child.get().call(Command.sql(id++, view.sql()), options.operationTimeout());
                    if (result instanceof Replied(Reply reply) && reply.status() == Status.OK) {
                        long now = System.nanoTime();
                        checker.check(view, reply.rows(), history.writes(), now, now, true);
                    } else {
                        violations.addFinal(READ_ERROR, 1, "final read %s: %s".formatted(view, describe(result)));
                    }
                }
            }
            engine.stop(STOP_GRACE);
        }
    }

    private static Optional<Child> startOrEmpty(ChildSlot slot) {
        try {
            return slot.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private void tieringEvent(String slot, Reply event) {
        boolean diskFull =
                faults != null && faults.diskFullOverlaps(System.nanoTime() - 5_000_000_000L, System.nanoTime());
        tally.increment("tiering rounds: " + event.outcome());
        List<Object> figures = event.rows().getFirst();
        tally.add("tiering: changes tiered", ((Number) figures.get(0)).longValue());
        tally.add("tiering: log segments removed by retention", ((Number) figures.get(1)).longValue());
        tally.add("tiering: buckets compacted", ((Number) figures.get(2)).longValue());
        tally.add("tiering: orphan files removed", ((Number) figures.get(3)).longValue());
        switch (event.outcome()) {
            case "TIERED", "UP_TO_DATE", "CONFLICT" -> lastTieringSuccessNanos.put(slot, System.nanoTime());
            case "STOPPED" ->
                violations.add(
                        TIERING_STOPPED,
                        1,
                        "%s stopped %s%s: %s"
                                .formatted(
                                        slot,
                                        event.table(),
                                        diskFull ? " (while the disk was full)" : "",
                                        event.message()));
            default -> history.note(slot, "tiering " + event.outcome(), event.table() + ": " + event.message());
        }
    }

    private ChildSlot slot(String name, ChildJvm jvm, Path warehouse, Consumer<Reply> events) {
        ChildSlot slot = new ChildSlot(name, jvm, warehouse, logs, START_TIMEOUT, history, violations, tally, events);
        allSlots.add(slot);
        return slot;
    }

    /** An operation slot before the run: its child and its workload, drawn from the seed. */
    private record PlannedSlot(ChildSlot slot, Workload workload, long seed) {}

    private static String describe(Child.Result result) {
        return result instanceof Replied(Reply reply)
                ? reply.message()
                : result.getClass().getSimpleName();
    }

    private SoakReport report(long elapsedNanos) {
        SoakReport report = new SoakReport(options, tally, violations, skews, elapsedNanos);
        try {
            Files.writeString(options.output().resolve("report.txt"), report.text(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return report;
    }
}
