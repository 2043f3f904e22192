package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadMode;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;
import java.util.OptionalLong;

/**
 * A read of a Lakestream table: {@code t} (union), {@code t$lake} (lake only) or {@code t$changes}
 * (the changelog), with what the engine pushed down.
 *
 * @param schemaName schema of the table
 * @param tableName the table's own name (without a {@code $} suffix)
 * @param mode which view of the table
 * @param constraint the filter this connector enforces exactly (pushed down by {@code applyFilter})
 * @param limit a row limit hint: each split returns at most this many rows
 */
public record LakestreamTableHandle(
        String schemaName,
        String tableName,
        ReadMode mode,
        TupleDomain<LakestreamColumnHandle> constraint,
        OptionalLong limit)
        implements ConnectorTableHandle {
    public LakestreamTableHandle {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(constraint, "constraint is null");
        requireNonNull(limit, "limit is null");
    }

    public LakestreamTableHandle(String schemaName, String tableName, ReadMode mode) {
        this(schemaName, tableName, mode, TupleDomain.all(), OptionalLong.empty());
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
        return new LakestreamTableHandle(schemaName, tableName, mode, newConstraint, limit);
    }

    public LakestreamTableHandle withLimit(long newLimit) {
        return new LakestreamTableHandle(schemaName, tableName, mode, constraint, OptionalLong.of(newLimit));
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
        limit.ifPresent(value -> result.append(" limit ").append(value));
        return result.toString();
    }
}
