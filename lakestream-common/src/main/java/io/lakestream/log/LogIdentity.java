package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

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
 */
public record LogIdentity(
        int formatVersion,
        UUID tableUuid,
        int bucketCount,
        List<String> primaryKey,
        List<String> bucketKey,
        JsonNode schema) {
    public static final int FORMAT_VERSION = 1;

    public LogIdentity {
        requireNonNull(tableUuid, "tableUuid is null");
        checkArgument(bucketCount >= 1, "bucketCount must be at least 1: %s", bucketCount);
        primaryKey = ImmutableList.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        bucketKey = ImmutableList.copyOf(requireNonNull(bucketKey, "bucketKey is null"));
        requireNonNull(schema, "schema is null");
    }

    /** The identity of a table's log: its UUID and its definition as the table is created. */
    public static LogIdentity of(UUID tableUuid, TableDefinition definition) {
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
                schema);
    }

    /** The schema the log is written with. */
    public Schema icebergSchema() {
        return SchemaParser.fromJson(schema.toString());
    }
}
