package io.lakestream.sqltests;

import static io.trino.testing.TestingSession.testSessionBuilder;

import com.google.inject.Key;
import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.lakestream.trino.LakestreamQueryRunner;
import io.lakestream.trino.StockIcebergCatalog;
import io.lakestream.trino.TrinoPluginJars;
import io.trino.execution.QueryInfo;
import io.trino.execution.QueryManager;
import io.trino.execution.QueryStats;
import io.trino.execution.StageId;
import io.trino.execution.StageInfo;
import io.trino.execution.StagesInfo;
import io.trino.execution.TaskInfo;
import io.trino.operator.OperatorStats;
import io.trino.server.BasicQueryInfo;
import io.trino.spi.Plugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A real in-process Trino (coordinator and one worker, unless told otherwise) with the {@code lakestream} catalog over the
 * warehouse, and Trino's stock Iceberg connector as the {@code iceberg} catalog over the same
 * warehouse. Both plugins are loaded as a Trino server loads them: Lakestream from the plugin
 * directory its build assembles, Iceberg from the jars Trino 483 ships, each into its own plugin
 * class loader.
 */
public final class TrinoEngine implements AutoCloseable {
    public static final String CATALOG = "lakestream";
    /**
     * The same warehouse through a {@code lakestream} catalog whose every union read reads the catalog
     * ({@link LakestreamQueryRunner#EXACT_LAKE_READS}): for reads that must see a lake change at once.
     */
    static final String EXACT_LAKE_CATALOG = "lakestream_exact";

    static final String PLUGIN_DIRECTORY_PROPERTY = "sqltests.trino.plugin.dir";
    /** The stock Iceberg connector again, allowed to set any table property (e.g. Lakestream's own). */
    static final String STOCK_ICEBERG_ANY_PROPERTIES = "iceberg_any_properties";

    private final DistributedQueryRunner runner;

    public TrinoEngine(Path warehouse) throws Exception {
        this(warehouse, 1);
    }

    /**
     * @param workers servers besides the coordinator (which schedules splits on itself too); 0 is a single-node
     *     Trino, as a deployment on one machine runs it
     */
    public TrinoEngine(Path warehouse, int workers) throws Exception {
        runner = DistributedQueryRunner.builder(
                        testSessionBuilder().setCatalog(CATALOG).build())
                .setWorkerCount(workers)
                .build();
        try {
            TrinoPluginJars.install(runner, TrinoPluginJars.fromDirectory("lakestream", Path.of(pluginDirectory())));
            runner.createCatalog(
                    CATALOG,
                    "lakestream",
                    Map.of("lakestream.catalog.type", "jdbc", "lakestream.warehouse", warehouse.toString()));
            Map<String, String> exact = new HashMap<>(
                    Map.of("lakestream.catalog.type", "jdbc", "lakestream.warehouse", warehouse.toString()));
            exact.putAll(LakestreamQueryRunner.EXACT_LAKE_READS);
            runner.createCatalog(EXACT_LAKE_CATALOG, "lakestream", exact);
            StockIcebergCatalog.install(runner, warehouse);
            Map<String, String> anyProperties = new HashMap<>(StockIcebergCatalog.properties(warehouse));
            anyProperties.put("iceberg.allowed-extra-properties", "*");
            runner.createCatalog(STOCK_ICEBERG_ANY_PROPERTIES, "iceberg", anyProperties);
        } catch (Throwable e) {
            runner.close();
            throw e;
        }
    }

    static String pluginDirectory() {
        String directory = System.getProperty(PLUGIN_DIRECTORY_PROPERTY);
        if (directory == null) {
            throw new IllegalStateException(
                    "System property %s (the Lakestream plugin directory) is not set: run the tests through Maven"
                            .formatted(PLUGIN_DIRECTORY_PROPERTY));
        }
        return directory;
    }

    /** Adds catalog {@code name} of connector {@code connector} (a plugin already installed: lakestream, iceberg). */
    void createCatalog(String name, String connector, Map<String, String> properties) {
        runner.createCatalog(name, connector, properties);
    }

    /**
     * The coordinator's full query info (plan with every handle, stats, failure, as the REST API and the web UI
     * serve it) of each query it still knows whose SQL contains {@code text}, as JSON.
     */
    List<String> queryInfoJson(String text) {
        // the server's own JSON set-up (the handle types of every plugin), as its REST API uses it
        JsonCodec<QueryInfo> codec = runner.getCoordinator()
                .getInstance(Key.get(JsonCodecFactory.class))
                .jsonCodec(QueryInfo.class);
        QueryManager queries = runner.getCoordinator().getQueryManager();
        return queries.getQueries().stream()
                .filter(query -> query.getQuery().contains(text))
                .map(query -> codec.toJson(queries.getFullQueryInfo(query.getQueryId())))
                .toList();
    }

    /**
     * Where the coordinator's time went for its most recent query whose SQL is exactly {@code statement}, in
     * milliseconds by phase, from Trino's own query stats (for benchmarks: wall time on a loaded machine says
     * little, the phases say which part grew). Empty if the coordinator no longer knows the query.
     */
    Optional<QueryPhases> lastQueryPhases(String statement) {
        QueryManager queries = runner.getCoordinator().getQueryManager();
        return queries.getQueries().stream()
                .filter(query -> query.getQuery().equals(statement))
                .max(Comparator.comparing(query -> query.getQueryStats().getCreateTime()))
                .map(BasicQueryInfo::getQueryId)
                .map(id -> QueryPhases.of(queries.getFullQueryInfo(id)));
    }

    /**
     * A query's phases in milliseconds (Trino's {@link QueryStats}), and its tasks and drivers; then its timeline
     * from the stages' tasks, in milliseconds after the query was created: when the first task was created, when the
     * drivers of the leaf stages (the table scans) and of the output stage had all ended, and when the query ended;
     * and the wall and CPU time of the table scan operators' {@code getOutput} (the connector's page sources). A
     * query without stages (none had started) has -1 for the timeline.
     */
    record QueryPhases(
            long elapsed,
            long queued,
            long analysis,
            long planning,
            long starting,
            long execution,
            long finishing,
            long cpu,
            long scheduled,
            long blocked,
            long tasks,
            long drivers,
            long firstTaskCreated,
            long leafDriversEnded,
            long outputDriversEnded,
            long ended,
            long scanWall,
            long scanCpu) {
        static QueryPhases of(QueryInfo info) {
            QueryStats stats = info.getQueryStats();
            Instant created = stats.getCreateTime();
            List<StageInfo> stages = info.getStages().map(StagesInfo::getStages).orElse(List.of());
            Optional<StageId> output = info.getStages().map(StagesInfo::getOutputStageId);
            List<TaskInfo> tasks =
                    stages.stream().flatMap(stage -> stage.tasks().stream()).toList();
            List<TaskInfo> leafTasks = stages.stream()
                    .filter(stage -> stage.subStages().isEmpty())
                    .flatMap(stage -> stage.tasks().stream())
                    .toList();
            List<TaskInfo> outputTasks = stages.stream()
                    .filter(stage -> output.isPresent() && stage.stageId().equals(output.get()))
                    .flatMap(stage -> stage.tasks().stream())
                    .toList();
            List<OperatorStats> scans = tasks.stream()
                    .flatMap(task -> task.stats().pipelines().stream())
                    .flatMap(pipeline -> pipeline.getOperatorSummaries().stream())
                    .filter(operator -> operator.getOperatorType().contains("TableScan")
                            || operator.getOperatorType().contains("ScanFilter"))
                    .toList();
            return new QueryPhases(
                    millis(stats.getElapsedTime()),
                    millis(stats.getQueuedTime()),
                    millis(stats.getAnalysisTime()),
                    millis(stats.getPlanningTime()),
                    millis(stats.getStartingTime()),
                    millis(stats.getExecutionTime()),
                    millis(stats.getFinishingTime()),
                    millis(stats.getTotalCpuTime()),
                    millis(stats.getTotalScheduledTime()),
                    millis(stats.getTotalBlockedTime()),
                    stats.getTotalTasks(),
                    stats.getTotalDrivers(),
                    after(created, tasks.stream().map(task -> task.stats().createTime()), false),
                    after(created, leafTasks.stream().map(task -> task.stats().lastEndTime()), true),
                    after(created, outputTasks.stream().map(task -> task.stats().lastEndTime()), true),
                    after(created, Stream.ofNullable(stats.getEndTime()), true),
                    scans.stream()
                            .mapToLong(scan -> millis(scan.getGetOutputWall()))
                            .sum(),
                    scans.stream()
                            .mapToLong(scan -> millis(scan.getGetOutputCpu()))
                            .sum());
        }

        /** Milliseconds from {@code start} to the latest (or earliest) of {@code times}; -1 if there are none. */
        private static long after(Instant start, Stream<Instant> times, boolean latest) {
            Comparator<Instant> order = Comparator.naturalOrder();
            return times.filter(Objects::nonNull)
                    .reduce((a, b) -> (order.compare(a, b) < 0) == latest ? b : a)
                    .map(time -> Duration.between(start, time).toMillis())
                    .orElse(-1L);
        }

        private static long millis(io.airlift.units.Duration duration) {
            return Math.round(duration.toMillis());
        }
    }

    /** Adds scalar functions (classes of {@code @ScalarFunction} methods) for the tests' statements. */
    void installFunctions(Set<Class<?>> functions) {
        runner.installPlugin(new Plugin() {
            @Override
            public Set<Class<?>> getFunctions() {
                return functions;
            }
        });
    }

    /**
     * What the {@code lakestream} connector read to find tables' state, summed over every node (its {@code
     * metadataReads()}: catalog reads, log file reads). The connector lives in its plugin class loader, so it
     * is called by name.
     */
    Map<String, Long> metadataReads() {
        return LakestreamQueryRunner.metadataReads(runner, CATALOG);
    }

    /** The class loader the {@code lakestream} connector runs in. */
    ClassLoader connectorClassLoader() {
        return runner.getCoordinator().getConnector(CATALOG).getClass().getClassLoader();
    }

    /** Runs one statement; returns its rows (an INSERT returns its row count), values normalized by {@link Values}. */
    public List<List<Object>> query(String statement) {
        try {
            List<List<Object>> rows = new ArrayList<>();
            for (MaterializedRow row : runner.execute(statement).getMaterializedRows()) {
                List<Object> values = new ArrayList<>(row.getFieldCount());
                for (Object field : row.getFields()) {
                    values.add(Values.normalize(field));
                }
                rows.add(values);
            }
            return rows;
        } catch (RuntimeException e) {
            throw new EngineException("Trino", statement, e);
        }
    }

    @Override
    public void close() {
        runner.close();
    }
}
