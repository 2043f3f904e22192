package io.lakestream.sqltests;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A writer or the tiering service of the freshness benchmark in a JVM of its own, as a deployment runs them:
 * {@code FreshnessChild <role> <warehouse> [<schema> <table>]}. It says {@link #READY} on its standard output,
 * then takes one request per line of its standard input and answers each with {@link #OK} once the write has
 * returned (its log commit is published: the acknowledgement the benchmark times from) or {@link #ERROR} and the
 * message; it exits when its standard input ends. Every role also answers {@link #JIT_REQUEST}. Roles:
 *
 * <ul>
 *   <li>{@code writer}: the Java writer; a request is a row id, upserted as {@code (id, 'java <id>')} in one commit;
 *   <li>{@code spark}: a local Spark session ({@link SparkEngine}); a request is a SQL statement;
 *   <li>{@code tiering}: the tiering service every second (other settings default); it takes no other requests.
 * </ul>
 */
public final class FreshnessChild {
    static final String READY = "@freshness ready";
    static final String OK = "@freshness ok";
    static final String ERROR = "@freshness error ";
    /**
     * A request any role answers with {@link #JIT} and the JVM's total JIT compilation milliseconds, instead of
     * treating it as a write: the benchmark warms up until the JIT is quiet in every JVM.
     */
    static final String JIT_REQUEST = "@freshness jit?";

    static final String JIT = "@freshness jit ";

    /** The tiering service of the benchmark: every second, other settings default. */
    static final TieringConfig TIERING =
            TieringConfig.defaults().toBuilder().interval(Duration.ofSeconds(1)).build();

    private FreshnessChild() {}

    public static void main(String[] args) {
        // engines take over System.out for their logging: the replies have the real standard output to themselves
        PrintStream replies = new PrintStream(new FileOutputStream(FileDescriptor.out), true, UTF_8);
        System.setOut(System.err);
        int status = 0;
        try {
            run(args, replies);
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            status = 1;
        }
        // engines leave non-daemon threads behind
        System.exit(status);
    }

    private static void run(String[] args, PrintStream replies) throws Exception {
        Path warehouse = Path.of(args[1]);
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, UTF_8));
        switch (args[0]) {
            case "writer" -> {
                TableIdentifier table = TableIdentifier.of(args[2], args[3]);
                try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                        BufferAllocator allocator = new RootAllocator()) {
                    serve(requests, replies, id -> upsert(catalog, allocator, table, Long.parseLong(id)));
                }
            }
            case "spark" -> {
                try (SparkEngine spark = new SparkEngine(warehouse)) {
                    serve(requests, replies, spark::query);
                }
            }
            case "tiering" -> {
                try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                        TieringService tiering = new TieringService(catalog, TIERING)) {
                    tiering.start();
                    replies.println(READY);
                    String request;
                    while ((request = requests.readLine()) != null) {
                        // no writes: runs until its standard input ends
                        if (request.equals(JIT_REQUEST)) {
                            replies.println(jitReply());
                        }
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown role " + args[0]);
        }
    }

    /** The row the benchmark's Java writer commits for {@code id}, as the in-process writer does. */
    static void upsert(LakestreamCatalog catalog, BufferAllocator allocator, TableIdentifier table, long id) {
        try (LakestreamWriter writer = new LakestreamWriter(catalog.loadTable(table), allocator)) {
            writer.upsert(Map.of("id", id, "note", "java " + id));
            writer.commit();
        }
    }

    private static String jitReply() {
        return JIT + ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    private static void serve(BufferedReader requests, PrintStream replies, Consumer<String> handler)
            throws IOException {
        replies.println(READY);
        String request;
        while ((request = requests.readLine()) != null) {
            if (request.equals(JIT_REQUEST)) {
                replies.println(jitReply());
                continue;
            }
            try {
                handler.accept(request);
                replies.println(OK);
            } catch (RuntimeException e) {
                e.printStackTrace(System.err);
                replies.println(ERROR + String.valueOf(e).replace('\n', ' '));
            }
        }
    }
}
