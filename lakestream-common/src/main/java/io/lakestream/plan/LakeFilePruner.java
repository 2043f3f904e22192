package io.lakestream.plan;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;

/**
 * Prunes already planned lake files with a filter, as Iceberg's planning does while it reads the
 * manifests: a file is kept unless its partition values or its column metrics prove that no row of
 * it matches (a file without metrics for a column is kept). Delete files are pruned the same way: a
 * delete that matches no row of the filter cannot remove a row the read returns.
 */
final class LakeFilePruner {
    private final Expression filter;
    private final Map<Integer, PartitionSpec> specs;
    private final InclusiveMetricsEvaluator metrics;
    private final Map<Integer, Evaluator> partitions = new HashMap<>();

    LakeFilePruner(Schema schema, Map<Integer, PartitionSpec> specs, Expression filter) {
        this.filter = filter;
        this.specs = specs;
        this.metrics = new InclusiveMetricsEvaluator(schema, filter);
    }

    boolean mightMatch(FileScanTask task) {
        return mightMatch(task.file());
    }

    List<DeleteFile> deletes(FileScanTask task) {
        return task.deletes().stream().filter(this::mightMatch).toList();
    }

    private boolean mightMatch(ContentFile<?> file) {
        Evaluator partition = partitions.computeIfAbsent(file.specId(), specId -> {
            PartitionSpec spec = specs.get(specId);
            return new Evaluator(
                    spec.partitionType(), Projections.inclusive(spec).project(filter));
        });
        return partition.eval(file.partition()) && metrics.eval(file);
    }
}
