package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.execution.StagesInfo;
import io.trino.execution.TaskInfo;
import io.trino.operator.OperatorStats;
import io.trino.operator.PipelineStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.QueryId;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.DistributedQueryRunner;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * What each node of a multi-node runner did for one finished query, from the coordinator's record of
 * its tasks (every task names the node that ran it, and keeps its operators' statistics): which nodes
 * read the splits of a scan, which nodes ran table writers.
 */
final class QueryTasksPerNode {
    private final DistributedQueryRunner runner;

    QueryTasksPerNode(DistributedQueryRunner runner) {
        this.runner = requireNonNull(runner, "runner is null");
    }

    /** The node ids of the workers (every node but the coordinator). */
    Set<String> workers() {
        return runner.getServers().stream()
                .filter(server -> !server.isCoordinator())
                .map(server -> server.getCurrentNode().getNodeIdentifier())
                .collect(Collectors.toSet());
    }

    String coordinator() {
        TestingTrinoServer coordinator = runner.getCoordinator();
        return coordinator.getCurrentNode().getNodeIdentifier();
    }

    /**
     * Per node: the Lakestream splits its page sources read (the connector's own split counters, which
     * every page source reports once, whichever read path it took). Nodes that read none are left out.
     */
    Map<String, Long> lakestreamSplits(QueryId queryId) {
        return perNode(queryId, operator -> splits(operator.getConnectorMetrics()));
    }

    /** The number of tasks of each stage of the query, root stage first: its shape after planning and scheduling. */
    List<Integer> tasksPerStage(QueryId queryId) {
        QueryInfo query = runner.getCoordinator().getQueryManager().getFullQueryInfo(queryId);
        return StagesInfo.getAllStages(query.getStages()).stream()
                .map(stage -> stage.tasks().size())
                .toList();
    }

    /** Per node: the rows its table writers (or merge writers) received. Nodes that wrote none are left out. */
    Map<String, Long> rowsWritten(QueryId queryId) {
        return perNode(
                queryId,
                operator -> operator.getOperatorType().equals("TableWriterOperator")
                                || operator.getOperatorType().equals("MergeWriterOperator")
                        ? operator.getInputPositions()
                        : 0);
    }

    private Map<String, Long> perNode(QueryId queryId, ToLongFunction<OperatorStats> value) {
        QueryInfo query = runner.getCoordinator().getQueryManager().getFullQueryInfo(queryId);
        Map<String, Long> total = new TreeMap<>();
        for (StageInfo stage : StagesInfo.getAllStages(query.getStages())) {
            for (TaskInfo task : stage.tasks()) {
                long sum = 0;
                for (PipelineStats pipeline : task.stats().pipelines()) {
                    for (OperatorStats operator : pipeline.getOperatorSummaries()) {
                        sum += value.applyAsLong(operator);
                    }
                }
                if (sum > 0) {
                    total.merge(task.taskStatus().nodeId(), sum, Long::sum);
                }
            }
        }
        return total;
    }

    /** The connector metrics of the whole query (every operator of every task, summed). */
    Metrics connectorMetrics(QueryId queryId) {
        return runner
                .getCoordinator()
                .getQueryManager()
                .getFullQueryInfo(queryId)
                .getQueryStats()
                .getOperatorSummaries()
                .stream()
                .map(OperatorStats::getConnectorMetrics)
                .reduce(Metrics.EMPTY, Metrics::mergeWith);
    }

    /** A counter of {@link LakestreamMetrics} (0 if no split reported it). */
    static long count(Metrics metrics, String name) {
        return metrics.getMetrics().get(name) instanceof LongCount count ? count.getTotal() : 0;
    }

    private static long splits(Metrics metrics) {
        return count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)
                + count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)
                + count(metrics, LakestreamMetrics.UNION_SPLIT_READER_SPLITS);
    }
}
