package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend;

/**
 * Builds an insert ({@code INSERT INTO}, {@code writeTo(...).append()}) or an overwrite: {@code
 * INSERT OVERWRITE} and {@code writeTo(...).overwritePartitions()} replace every row (the table
 * has no Spark partitions, so a dynamic overwrite replaces all of it, as for Spark's unpartitioned
 * file tables), {@code writeTo(...).overwrite(condition)} the rows matching the condition. An
 * overwrite deletes keys, so it needs a primary-key table. A streaming write takes the append and
 * the update output modes ({@link SupportsStreamingUpdateAsAppend}: every row a micro-batch emits is
 * written, which on a primary-key table is an upsert by key).
 */
final class LakestreamWriteBuilder
        implements SupportsOverwriteV2, SupportsDynamicOverwrite, SupportsStreamingUpdateAsAppend {
    private final LakestreamTable table;
    private final LogicalWriteInfo info;
    private Optional<Expression> overwrite = Optional.empty();

    LakestreamWriteBuilder(LakestreamTable table, LogicalWriteInfo info) {
        this.table = requireNonNull(table, "table is null");
        this.info = requireNonNull(info, "info is null");
    }

    @Override
    public LakestreamWriteBuilder truncate() {
        return overwriteWhere(Expressions.alwaysTrue());
    }

    @Override
    public LakestreamWriteBuilder overwriteDynamicPartitions() {
        if (table.table().definition().isPartitioned()) {
            // replacing only the partitions the rows reach is not implemented: never replace the whole table instead
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    "Dynamic partition overwrite of the partitioned table %s is not supported; overwrite with a condition (INSERT OVERWRITE ... PARTITION (col = value) or df.writeTo(...).overwrite(condition)), or DELETE then INSERT"
                            .formatted(table.table().identifier()));
        }
        return overwriteWhere(Expressions.alwaysTrue());
    }

    @Override
    public LakestreamWriteBuilder overwrite(Predicate[] predicates) {
        Schema schema = table.table().definition().schema();
        Expression filter = Expressions.alwaysTrue();
        for (Predicate predicate : predicates) {
            // every matching row must go: a condition that is not evaluated exactly cannot be used
            Expression translated = LakestreamFilters.translate(predicate, schema)
                    .orElseThrow(() -> new LakestreamException(
                            UNSUPPORTED_OPERATION,
                            ("Cannot overwrite %s where %s: only comparisons, IN, IS [NOT] NULL and STARTS_WITH of columns with "
                                            + "literals (and AND/OR/NOT of them) are supported as an overwrite condition; use "
                                            + "DELETE FROM with that condition and then INSERT INTO, or MERGE INTO")
                                    .formatted(table.name(), predicate)));
            filter = Expressions.and(filter, translated);
        }
        return overwriteWhere(filter);
    }

    private LakestreamWriteBuilder overwriteWhere(Expression filter) {
        if (!table.table().definition().hasPrimaryKey()) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    ("INSERT OVERWRITE (or an overwrite by DataFrame, or a streaming write in complete output mode) of %s is not "
                                    + "supported: it is an append-only table "
                                    + "(no primary key), whose log only takes inserts, so its rows cannot be replaced. "
                                    + "Overwrite needs a table created with TBLPROPERTIES ('primary-key'='...'); to replace "
                                    + "an append-only table's rows, write them into a new table (or DROP TABLE and create it again)")
                            .formatted(table.name()));
        }
        overwrite = Optional.of(filter);
        return this;
    }

    @Override
    public Write build() {
        return new LakestreamWrite(
                table.ref(),
                table.table(),
                info,
                overwrite.map(filter -> LakestreamOverwrite.pin(table.table(), filter)),
                table.scans());
    }
}
