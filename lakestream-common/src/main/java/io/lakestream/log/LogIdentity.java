package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableList;
import io.lakestream.table.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * The identity record of a log, {@code <log root>/_identity.json}: which table the log belongs to
 * (the lake's Iceberg table UUID) and the layout its segments are written with. Written once, with
 * create-if-absent, when the table is created; never changed. Every commit carries the same UUID, so
 * a writer that loaded a table that was dropped (and perhaps re-created at the same location) cannot
 * publish into the log of another table. See docs/format.md.
 *
 * @param formatVersion version of this record's format
 * @param tableUuid the lake's Iceberg table UUID
 * @param bucketCount the number of buckets
 * @param primaryKey primary key columns; empty for an append-only table
 * @param bucketKey bucket key columns; empty for an append-only table that spreads rows
 * @param schema the user columns the log is written with, as Iceberg schema JSON (field ids included)
 * @param partitionedLog whether the log is one log per (partition, bucket) (docs/format.md "The log of a partitioned
 *     table"); decided when the table is created and never changed, so a log never mixes per-bucket and
 *     per-(partition, bucket) segments. Absent (false) in the records of per-bucket logs, which stay as written before
 */
public record LogIdentity(
        int formatVersion,
        UUID tableUuid,
        int bucketCount,
        List<String> primaryKey,
        List<String> bucketKey,
        JsonNode schema,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean partitionedLog) {
    public static final int FORMAT_VERSION = 1;

    public LogIdentity {
        requireNonNull(tableUuid, "tableUuid is null");
        checkArgument(bucketCount >= 1, "bucketCount must be at least 1: %s", bucketCount);
        primaryKey = ImmutableList.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        bucketKey = ImmutableList.copyOf(requireNonNull(bucketKey, "bucketKey is null"));
        requireNonNull(schema, "schema is null");
    }

    /** The identity of a per-bucket log of a table: its UUID and its definition as the table is created. */
    public static LogIdentity of(UUID tableUuid, TableDefinition definition) {
        return of(tableUuid, definition, false);
    }

    /**
     * The identity of a table's log; {@code partitionedLog} only for a partitioned table, whose rows the writers then
     * route to one log per (partition, bucket).
     */
    public static LogIdentity of(UUID tableUuid, TableDefinition definition, boolean partitionedLog) {
        checkArgument(
                !partitionedLog || definition.isPartitioned(), "an unpartitioned table cannot have a partitioned log");
        JsonNode schema;
        try {
            schema = LogJson.mapper().readTree(SchemaParser.toJson(definition.schema()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new LogIdentity(
                FORMAT_VERSION,
                tableUuid,
                definition.bucketCount(),
                definition.primaryKey(),
                definition.bucketKey(),
                schema,
                partitionedLog);
    }

    /** The schema the log is written with. */
    public Schema icebergSchema() {
        return SchemaParser.fromJson(schema.toString());
    }
}
