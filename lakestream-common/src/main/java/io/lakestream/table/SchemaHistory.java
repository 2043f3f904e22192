package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;

import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Which Iceberg schema was current at which log version, so that time travel reads the columns of its time. An
 * {@code ALTER TABLE} makes no log commit (docs/format.md "Schema evolution"), so the record is kept in the lake's
 * table property {@link #PROPERTY}, written in the same metadata commit as the schema it names: a list of
 * {@code firstLogVersion:schemaId} entries, in the order they were made, e.g. {@code 0:0,8:1,8:2,12:0}. An entry
 * says that the schema was current from that log version on (the ALTER saw {@code firstLogVersion - 1} as the
 * newest version): every commit up to then was written before the ALTER committed, so with an older schema.
 * Several ALTERs between two log commits share a first version; the last one wins. Schema ids may repeat (an ALTER
 * that brings back an earlier schema gets its id back). The schemas themselves are Iceberg's ({@code
 * table.schemas()}), with the ids, names and types of dropped columns.
 *
 * <p>A table created before the record existed has no entry for its early versions: those are read with the
 * current schema, as before ({@link #schemaIdAt} is empty).
 */
public final class SchemaHistory {
    /** The table property holding the record. */
    public static final String PROPERTY = "lakestream.schema-log-versions";

    private SchemaHistory() {}

    /** One entry: the schema current from {@code firstLogVersion} on. */
    record Entry(long firstLogVersion, int schemaId) {}

    /** The record of a new table: its first schema, current from log version 0 (the empty table). */
    public static String initial(int schemaId) {
        return format(List.of(new Entry(0, schemaId)));
    }

    /**
     * The record after an ALTER that made schema {@code schemaId} current while the log's newest version was {@code
     * newestLogVersion}: read that version before the metadata commit, so that every later log commit may already
     * carry the new schema and every earlier one surely does not.
     */
    public static String appended(Map<String, String> properties, long newestLogVersion, int schemaId) {
        List<Entry> entries = new ArrayList<>(parse(properties));
        entries.add(new Entry(newestLogVersion + 1, schemaId));
        return format(entries);
    }

    /** The id of the schema current at {@code logVersion}, or empty when the record does not reach back that far. */
    public static Optional<Integer> schemaIdAt(Map<String, String> properties, long logVersion) {
        Optional<Integer> result = Optional.empty();
        for (Entry entry : parse(properties)) {
            if (entry.firstLogVersion() <= logVersion) {
                result = Optional.of(entry.schemaId());
            }
        }
        return result;
    }

    /**
     * {@code table} as read at {@code logVersion}: with the schema current then (names, types and order of that time;
     * the same lake and log). The table itself when that is the current schema, when the record does not reach back
     * that far, or when Iceberg no longer keeps that schema (metadata clean-up removed it): then the current schema is
     * the best there is.
     */
    public static LakestreamTable atLogVersion(LakestreamTable table, long logVersion) {
        Optional<Integer> schemaId = schemaIdAt(table.lake().properties(), logVersion);
        return schemaId.isEmpty() ? table : withSchema(table, schemaId.get());
    }

    /** {@code table} read with the lake's schema {@code schemaId} (the table itself if that is the current one). */
    public static LakestreamTable withSchema(LakestreamTable table, int schemaId) {
        Schema schema = table.lake().schemas().get(schemaId);
        if (schema == null || schemaId == table.lake().schema().schemaId()) {
            return table;
        }
        TableDefinition definition =
                TableDefinition.fromIceberg(table.identifier().toString(), table.lake(), schema);
        return new LakestreamTable(table.identifier(), table.lake(), definition, table.log());
    }

    /**
     * True if the read's schema has a column or field whose type the lake's current schema widened since: lake files
     * written after the widening hold the wider type, which a reader must convert back (the values of that time fit).
     */
    public static boolean narrowerThanLake(LakestreamTable table) {
        Schema lake = table.lake().schema();
        for (Types.NestedField field :
                TypeUtil.indexById(table.definition().schema().asStruct()).values()) {
            Type there = lake.findType(field.fieldId());
            if (field.type().isPrimitiveType() && there != null && !there.equals(field.type())) {
                return true;
            }
        }
        return false;
    }

    static List<Entry> parse(Map<String, String> properties) {
        String value = properties.get(PROPERTY);
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<Entry> entries = new ArrayList<>();
        for (String item : value.split(",")) {
            int colon = item.indexOf(':');
            try {
                entries.add(new Entry(
                        Long.parseLong(item.substring(0, colon).trim()),
                        Integer.parseInt(item.substring(colon + 1).trim())));
            } catch (RuntimeException e) {
                throw new LakestreamException(
                        INVALID_TABLE_DEFINITION,
                        "Table property '%s' is not a list of 'logVersion:schemaId' entries: %s"
                                .formatted(PROPERTY, value),
                        e);
            }
        }
        return entries;
    }

    private static String format(List<Entry> entries) {
        return entries.stream()
                .map(entry -> entry.firstLogVersion() + ":" + entry.schemaId())
                .collect(Collectors.joining(","));
    }
}
