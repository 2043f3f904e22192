package io.lakestream.sqltests.soak;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LogIdentity;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.sqltests.SparkEngine;
import io.lakestream.sqltests.TrinoEngine;
import io.lakestream.sqltests.soak.SoakMessage.Command;
import io.lakestream.sqltests.soak.SoakMessage.Reply;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A child JVM of the soak: {@code SoakChild <role> <warehouse> [--option value]...}. It answers the
 * coordinator's {@link Command}s one at a time (see {@link SoakMessage}) and exits when its standard
 * input ends, so a dead coordinator leaves no child behind. Roles:
 *
 * <ul>
 *   <li>{@code trino}, {@code spark}: a real engine ({@link TrinoEngine} with the stock Iceberg catalog
 *       beside ours, {@link SparkEngine}) running SQL statements;
 *   <li>{@code writer}: the Java writer, with its clock (and its log's clock) offset by {@code
 *       --clock-offset-ms}, committing with idempotency keys;
 *   <li>{@code tiering}: the tiering service, rounds in a loop, each round's outcome sent as an event;
 *   <li>{@code final-tier}: a fresh tiering service with default settings that tiers until the lake holds
 *       the whole log.
 * </ul>
 */
public final class SoakChild {
    private SoakChild() {}

    public static void main(String[] args) {
        // Engines take over System.out for their logging: the protocol has standard output to itself
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, UTF_8);
        System.setOut(System.err);
        int status = 0;
        try {
            run(args, protocol);
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            status = 1;
        }
        // engines leave non-daemon threads behind
        System.exit(status);
    }

    private static void run(String[] args, PrintStream protocol) throws Exception {
        String role = args[0];
        Path warehouse = Path.of(args[1]);
        Map<String, String> options = new HashMap<>();
        for (int i = 2; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Channel channel = new Channel(protocol);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, UTF_8));
        switch (role) {
            case "trino" -> {
                try (TrinoEngine trino = new TrinoEngine(warehouse)) {
                    serveSql(input, channel, trino::query);
                }
            }
            case "spark" -> {
                try (SparkEngine spark = new SparkEngine(warehouse)) {
                    serveSql(input, channel, spark::query);
                }
            }
            case "writer" -> {
                Clock clock = Clock.offset(
                        Clock.systemUTC(), Duration.ofMillis(Long.parseLong(options.get("clock-offset-ms"))));
                try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                        BufferAllocator allocator = new RootAllocator()) {
                    serve(
                            input,
                            channel,
                            command -> command.action() == SoakMessage.Action.CATALOG
                                    ? commitToCatalog(catalog, command)
                                    : write(catalog, allocator, clock, command));
                }
            }
            case "tiering" -> runTiering(warehouse, options, input, channel);
            case "final-tier" -> {
                try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                        TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
                    serve(input, channel, command -> tierUntilCaughtUp(tiering, command));
                }
            }
            default -> throw new IllegalArgumentException("unknown role " + role);
        }
    }

    /** An engine serves several clients at once (a server's sessions): each statement runs on a thread of its own. */
    private static void serveSql(BufferedReader input, Channel channel, Function<String, List<List<Object>>> engine)
            throws IOException, InterruptedException {
        ExecutorService sessions = Executors.newCachedThreadPool();
        try {
            serve(input, channel, command -> Reply.ok(command.id(), engine.apply(command.statement()), null), sessions);
        } finally {
            sessions.shutdown();
            sessions.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    private static void serve(BufferedReader input, Channel channel, Function<Command, Reply> handler)
            throws IOException {
        serve(input, channel, handler, Runnable::run);
    }

    /** Answers every command until STOP or the end of standard input. */
    private static void serve(
            BufferedReader input, Channel channel, Function<Command, Reply> handler, Executor executor)
            throws IOException {
        channel.send(new Reply(-1, SoakMessage.Status.READY, null, null, null, null));
        String line;
        while ((line = input.readLine()) != null) {
            Command command = SoakMessage.decode(line, Command.class);
            if (command.action() == SoakMessage.Action.STOP) {
                return;
            }
            executor.execute(() -> {
                Reply reply;
                try {
                    reply = handler.apply(command);
                } catch (RuntimeException | Error e) {
                    e.printStackTrace(System.err);
                    reply = Reply.error(command.id(), e);
                }
                channel.send(reply);
            });
        }
    }

    /**
     * One commit of the Java writer. The table's log is opened with the writer's (offset) clock, so the
     * commit's timestamps come from it, as from a writer host whose clock is off. With a hold, the
     * segments are staged first and committed after the hold, as a long job commits what its tasks staged.
     */
    private static Reply write(LakestreamCatalog catalog, BufferAllocator allocator, Clock clock, Command command) {
        LakestreamTable loaded = catalog.loadTable(TableIdentifier.of(SoakTables.SCHEMA, command.table()));
        LakestreamTable table = new LakestreamTable(
                loaded.identifier(),
                loaded.lake(),
                loaded.definition(),
                // bound to the table's identity, as the catalog opens it (LakestreamCatalog.openLog), with the skewed
                // clock
                new FileStreamLog(
                        loaded.log().paths().root(),
                        loaded.log().fileSystem(),
                        loaded.definition().bucketCount(),
                        clock,
                        LogIdentity.of(loaded.lake().uuid(), loaded.definition()),
                        loaded.lake().name()));
        try (LakestreamWriter writer =
                new LakestreamWriter(table, allocator, clock, LakestreamWriter.DEFAULT_BATCH_ROWS)) {
            for (int i = 0; i < command.rows().size(); i++) {
                Map<String, Object> values = new HashMap<>();
                // JSON numbers arrive as Integer or Long; every numeric soak column is a bigint
                command.rows()
                        .get(i)
                        .forEach((name, value) -> values.put(name, value instanceof Number n ? n.longValue() : value));
                String change = command.changes().get(i);
                switch (change) {
                    case "append" -> writer.append(values);
                    case "upsert" -> writer.upsert(values);
                    case "delete" -> writer.delete(values);
                    default -> throw new IllegalArgumentException("unknown change " + change);
                }
            }
            CommitResult result;
            if (command.holdMillis() > 0) {
                List<StagedSegment> staged = writer.prepare();
                sleep(command.holdMillis());
                result = table.log().commit(staged, Optional.of(command.idempotencyKey()));
                if (result.alreadyApplied()) {
                    table.log().discard(staged);
                }
            } else {
                result = writer.commit(command.idempotencyKey());
            }
            return Reply.ok(
                    command.id(),
                    List.of(List.of(result.version())),
                    result.alreadyApplied() ? "already-applied" : "committed");
        }
    }

    private static Reply commitToCatalog(LakestreamCatalog catalog, Command command) {
        ((SupportsNamespaces) catalog.icebergCatalog())
                .setProperties(Namespace.of(SoakTables.SCHEMA), Map.of("soak.probe", Long.toString(command.id())));
        return Reply.ok(command.id(), List.of(), "committed");
    }

    private static Reply tierUntilCaughtUp(TieringService tiering, Command command) {
        for (int round = 1; round <= 200; round++) {
            List<TieringResult> results = tiering.runOnce();
            List<TieringResult> failed = results.stream()
                    .filter(result -> result.outcome() != TieringResult.Outcome.TIERED
                            && result.outcome() != TieringResult.Outcome.UP_TO_DATE
                            && result.outcome() != TieringResult.Outcome.CONFLICT)
                    .toList();
            if (!failed.isEmpty()) {
                return new Reply(
                        command.id(),
                        SoakMessage.Status.ERROR,
                        null,
                        failed.stream()
                                .map(result -> result.table() + " " + result.outcome() + ": "
                                        + result.error().orElse(""))
                                .toList()
                                .toString(),
                        null,
                        null);
            }
            if (results.stream().allMatch(result -> result.outcome() == TieringResult.Outcome.UP_TO_DATE)) {
                return Reply.ok(command.id(), List.of(List.of((long) round)), "caught-up");
            }
        }
        return new Reply(
                command.id(), SoakMessage.Status.ERROR, null, "the lake did not catch up in 200 rounds", null, null);
    }

    /** Tiering rounds in a loop until STOP or the end of standard input; every round's outcome is an event. */
    private static void runTiering(Path warehouse, Map<String, String> options, BufferedReader input, Channel channel)
            throws Exception {
        Duration orphanAge = Duration.ofMillis(Long.parseLong(options.get("orphan-age-ms")));
        Duration interval = Duration.ofMillis(Long.parseLong(options.get("interval-ms")));
        TieringConfig config = TieringConfig.defaults().toBuilder()
                .interval(interval)
                .retention(Duration.ofMillis(Long.parseLong(options.get("retention-ms"))))
                .orphanAge(orphanAge)
                .orphanSweepInterval(Duration.ofMillis(Long.parseLong(options.get("sweep-interval-ms"))))
                .compactionDeleteFiles(2)
                .compactionSmallFiles(4)
                .build();
        Clock clock =
                Clock.offset(Clock.systemUTC(), Duration.ofMillis(Long.parseLong(options.get("clock-offset-ms"))));
        AtomicBoolean running = new AtomicBoolean(true);
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            try {
                String line;
                while ((line = input.readLine()) != null) {
                    if (SoakMessage.decode(line, Command.class).action() == SoakMessage.Action.STOP) {
                        break;
                    }
                }
            } catch (IOException e) {
                // the coordinator is gone
            }
            running.set(false);
        });
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                TieringService tiering = new TieringService(catalog, config, TieringHooks.NONE, clock)) {
            channel.send(new Reply(-1, SoakMessage.Status.READY, null, null, null, null));
            while (running.get()) {
                try {
                    for (TieringResult result : tiering.runOnce()) {
                        channel.send(Reply.event(
                                result.table().toString(),
                                result.outcome().name(),
                                List.of(
                                        result.changesTiered(),
                                        (long) result.segmentsRemoved(),
                                        (long) result.bucketsCompacted().size(),
                                        (long) result.orphansRemoved()),
                                result.error().orElse(null)));
                        if (result.outcome() == TieringResult.Outcome.STOPPED) {
                            // reported (the coordinator counts it); resumed so that the soak goes on exercising it
                            tiering.resume(result.table());
                        }
                    }
                } catch (RuntimeException e) {
                    channel.send(Reply.event("*", "ERROR", List.of(0L, 0L, 0L, 0L), SoakMessage.describe(e)));
                }
                sleep(interval.toMillis());
            }
        }
        watcher.interrupt();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The protocol's output: one reply per line, whole lines only (a tiering child sends from one thread). */
    private record Channel(PrintStream out) {
        synchronized void send(Reply reply) {
            out.println(SoakMessage.PREFIX + SoakMessage.encode(reply));
        }
    }
}
