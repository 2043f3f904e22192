package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.SchemaHistory;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * A read of a Lakestream table: {@code t} (union), {@code t$lake} (lake only) or {@code t$changes}
 * (the changelog), with what the engine pushed down.
 *
 * @param schemaName schema of the table
 * @param tableName the table's own name (without a {@code $} suffix)
 * @param mode which view of the table
 * @param constraint the filter this connector enforces exactly (pushed down by {@code applyFilter})
 * @param limit a row limit hint: each split returns at most this many rows
 * @param logVersion time travel: read as of this log version ({@code FOR VERSION AS OF})
 * @param asOfTimestampMillis time travel: read as of this time ({@code FOR TIMESTAMP AS OF})
 * @param schemaId time travel: the lake schema current at the version read ({@link SchemaHistory}), whose columns
 *     the read has; empty to read with the pinned table's current schema
 * @param pin the table state the query reads (time travel goes back from it)
 * @param pruning filters on fields of row columns ({@code r.a}) that the engine applies itself and that prune lake
 *     files and row groups ({@link LakestreamFilterTranslator#isPrunable}); never applied to rows
 * @param primaryKeyFieldIds the field ids of the pinned table's primary-key columns (empty without a primary key):
 *     whether a read is a point read ({@link LakestreamPointReads}) is then known from the handle alone, which
 *     the optimizer asks many times per query
 */
public record LakestreamTableHandle(
        String schemaName,
        String tableName,
        ReadMode mode,
        TupleDomain<LakestreamColumnHandle> constraint,
        OptionalLong limit,
        OptionalLong logVersion,
        OptionalLong asOfTimestampMillis,
        OptionalInt schemaId,
        LakestreamPin pin,
        TupleDomain<LakestreamColumnHandle> pruning,
        List<Integer> primaryKeyFieldIds)
        implements ConnectorTableHandle {
    public LakestreamTableHandle {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(constraint, "constraint is null");
        requireNonNull(limit, "limit is null");
        requireNonNull(logVersion, "logVersion is null");
        requireNonNull(asOfTimestampMillis, "asOfTimestampMillis is null");
        requireNonNull(schemaId, "schemaId is null");
        requireNonNull(pin, "pin is null");
        requireNonNull(pruning, "pruning is null");
        primaryKeyFieldIds = List.copyOf(requireNonNull(primaryKeyFieldIds, "primaryKeyFieldIds is null"));
    }

    /** A read of a table without a primary key (or of a view that is never a point read). */
    public LakestreamTableHandle(String schemaName, String tableName, ReadMode mode, LakestreamPin pin) {
        this(schemaName, tableName, mode, pin, List.of());
    }

    public LakestreamTableHandle(
            String schemaName, String tableName, ReadMode mode, LakestreamPin pin, List<Integer> primaryKeyFieldIds) {
        this(
                schemaName,
                tableName,
                mode,
                TupleDomain.all(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalInt.empty(),
                pin,
                TupleDomain.all(),
                primaryKeyFieldIds);
    }

    /** The table in the catalog (the same for every view of it). */
    public SchemaTableName baseTable() {
        return new SchemaTableName(schemaName, tableName);
    }

    /** The name the user queried, e.g. {@code t$lake}. */
    public SchemaTableName viewName() {
        return new SchemaTableName(schemaName, LakestreamTableName.format(tableName, mode));
    }

    public LakestreamTableHandle withConstraint(TupleDomain<LakestreamColumnHandle> newConstraint) {
        return new LakestreamTableHandle(
                schemaName,
                tableName,
                mode,
                newConstraint,
                limit,
                logVersion,
                asOfTimestampMillis,
                schemaId,
                pin,
                pruning,
                primaryKeyFieldIds);
    }

    /** With filters on fields of row columns that prune lake files and row groups (the engine applies them). */
    public LakestreamTableHandle withPruning(TupleDomain<LakestreamColumnHandle> newPruning) {
        return new LakestreamTableHandle(
                schemaName,
                tableName,
                mode,
                constraint,
                limit,
                logVersion,
                asOfTimestampMillis,
                schemaId,
                pin,
                newPruning,
                primaryKeyFieldIds);
    }

    public LakestreamTableHandle withLimit(long newLimit) {
        return new LakestreamTableHandle(
                schemaName,
                tableName,
                mode,
                constraint,
                OptionalLong.of(newLimit),
                logVersion,
                asOfTimestampMillis,
                schemaId,
                pin,
                pruning,
                primaryKeyFieldIds);
    }

    /** Reads as of a log version or a time instead of the newest state. */
    public LakestreamTableHandle withTimeTravel(OptionalLong newLogVersion, OptionalLong newAsOfTimestampMillis) {
        return new LakestreamTableHandle(
                schemaName,
                tableName,
                mode,
                constraint,
                limit,
                newLogVersion,
                newAsOfTimestampMillis,
                schemaId,
                pin,
                pruning,
                primaryKeyFieldIds);
    }

    /** Reads with the lake schema {@code newSchemaId} (the schema of the version time travel reads). */
    public LakestreamTableHandle withSchemaId(int newSchemaId) {
        return new LakestreamTableHandle(
                schemaName,
                tableName,
                mode,
                constraint,
                limit,
                logVersion,
                asOfTimestampMillis,
                OptionalInt.of(newSchemaId),
                pin,
                pruning,
                primaryKeyFieldIds);
    }

    /** How the shared planner reads this handle: its view, time travel and the enforced filter. */
    public ReadOptions readOptions() {
        ReadOptions options = ReadOptions.of(mode).withFilter(LakestreamFilterTranslator.toExpression(constraint));
        if (logVersion.isPresent()) {
            options = options.atLogVersion(logVersion.getAsLong());
        }
        if (asOfTimestampMillis.isPresent()) {
            options = options.asOfTimestamp(asOfTimestampMillis.getAsLong());
        }
        return options;
    }

    /**
     * How the split manager plans this handle: {@link #readOptions()} with the pruning filters too, so that planning
     * leaves out lake files no row of which can match them. The planner only prunes with its filter (buckets, lake
     * files); the rows are filtered by the page source (the enforced constraint) and by the engine (the rest).
     */
    public ReadOptions planOptions() {
        ReadOptions options = readOptions();
        return pruning.isAll()
                ? options
                : options.withFilter(
                        Expressions.and(options.filter(), LakestreamFilterTranslator.toExpression(pruning)));
    }

    /** The Iceberg expression of the pruning filters: lake row groups it cannot match need not be read. */
    public Expression pruningExpression() {
        return LakestreamFilterTranslator.toExpression(pruning);
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder(viewName().toString());
        constraint.getDomains().ifPresent(domains -> {
            if (!domains.isEmpty()) {
                result.append(" constraint on ")
                        .append(domains.keySet().stream()
                                .map(LakestreamColumnHandle::name)
                                .sorted()
                                .toList());
            }
        });
        if (constraint.isNone()) {
            result.append(" constraint false");
        }
        pruning.getDomains().ifPresent(domains -> {
            if (!domains.isEmpty()) {
                result.append(" pruning by ")
                        .append(domains.keySet().stream()
                                .map(LakestreamColumnHandle::qualifiedName)
                                .sorted()
                                .toList());
            }
        });
        limit.ifPresent(value -> result.append(" limit ").append(value));
        logVersion.ifPresent(value -> result.append(" at log version ").append(value));
        asOfTimestampMillis.ifPresent(value -> result.append(" as of ").append(Instant.ofEpochMilli(value)));
        return result.toString();
    }
}
