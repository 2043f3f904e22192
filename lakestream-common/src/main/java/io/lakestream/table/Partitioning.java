package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.PARTITIONING_NOT_ALLOWED;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.common.LakestreamException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;

/**
 * The user's partitioning of a table: terms spelled as Trino's Iceberg connector spells them ({@code region},
 * {@code day(ts)}, {@code bucket(id, 8)}, {@code truncate(name, 3)}), turned into the leading fields of the
 * lake's partition spec (the bucket field follows them, see docs/format.md "Partitioned tables").
 */
public final class Partitioning {
    private static final Pattern FUNCTION =
            Pattern.compile("(?i)\\s*(\\w+)\\s*\\(\\s*([^,()]+?)\\s*(?:,\\s*(\\d+)\\s*)?\\)\\s*");
    private static final Pattern IDENTITY = Pattern.compile("\\s*\"?([^\"(),]+?)\"?\\s*");
    private static final String SUPPORTED =
            "col, year(col), month(col), day(col), hour(col), bucket(col, n), truncate(col, w)";

    private Partitioning() {}

    /**
     * Adds the terms, in order, to {@code builder} (a builder over the lake schema). A primary-key table may be
     * partitioned only by primary-key columns, so that every key lives in one partition.
     */
    public static void addFields(
            PartitionSpec.Builder builder, Schema schema, List<String> terms, List<String> primaryKey) {
        for (String term : terms) {
            Term parsed = parse(term);
            Types.NestedField column = schema.caseInsensitiveFindField(parsed.column());
            if (column == null || schema.findColumnName(column.fieldId()).contains(".")) {
                throw new LakestreamException(
                        INVALID_TABLE_DEFINITION,
                        "Invalid table definition: partitioning term '%s' names column '%s', which is not a top-level column of the table"
                                .formatted(term, parsed.column()));
            }
            if (!primaryKey.isEmpty() && !primaryKey.contains(column.name())) {
                throw notAllowed(
                        "partitioning term '%s' uses column '%s', which is not part of the primary key %s: every partition column of a primary-key table must be a primary-key column, so that all versions of a key live in one partition; add it to the primary key or partition by a key column"
                                .formatted(term, column.name(), primaryKey));
            }
            if (!parsed.transform().canTransform(column.type())) {
                throw notAllowed("partitioning term '%s' cannot apply %s to column '%s' of type %s"
                        .formatted(term, parsed.transform(), column.name(), column.type()));
            }
            try {
                add(builder, parsed, column.name());
            } catch (IllegalArgumentException e) {
                throw notAllowed("partitioning term '%s' cannot be added to the table's partition spec: %s"
                        .formatted(term, e.getMessage()));
            }
        }
    }

    /** A partition field as a term of Trino's {@code partitioning} table property. */
    public static String describe(PartitionField field, Schema schema) {
        String column = schema.findColumnName(field.sourceId());
        String transform = field.transform().toString();
        if (transform.equals("identity")) {
            return column;
        }
        Matcher parameter = Pattern.compile("(\\w+)\\[(\\d+)]").matcher(transform);
        if (parameter.matches()) {
            return "%s(%s, %s)".formatted(parameter.group(1), column, parameter.group(2));
        }
        return "%s(%s)".formatted(transform, column);
    }

    /** The fields as terms of Trino's {@code partitioning} table property. */
    public static List<String> describe(List<PartitionField> fields, Schema schema) {
        return fields.stream().map(field -> describe(field, schema)).toList();
    }

    /**
     * The user's partition fields alone (spec 0 of the lake without its bucket field), over the user schema: the spec
     * whose partition paths name the partitions of the log (docs/format.md "The log of a partitioned table"). The
     * fields keep spec 0's names and ids, so a partition's path does not change when its source column is renamed.
     */
    public static PartitionSpec userSpec(TableDefinition definition) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("spec-id", 0);
        ArrayNode fields = json.putArray("fields");
        for (PartitionField field : definition.partitionFields()) {
            fields.addObject()
                    .put("name", field.name())
                    .put("transform", field.transform().toString())
                    .put("source-id", field.sourceId())
                    .put("field-id", field.fieldId());
        }
        return PartitionSpecParser.fromJson(definition.schema(), json.toString());
    }

    private record Term(String column, Transform<?, ?> transform, String name, int parameter) {}

    private static Term parse(String term) {
        Matcher function = FUNCTION.matcher(term);
        if (function.matches()) {
            String name = function.group(1).toLowerCase(Locale.ROOT);
            String column = function.group(2);
            boolean hasParameter = function.group(3) != null;
            int parameter = hasParameter ? parseParameter(term, function.group(3)) : 0;
            Transform<?, ?> transform = switch (name) {
                case "year" -> hasParameter ? null : Transforms.year();
                case "month" -> hasParameter ? null : Transforms.month();
                case "day" -> hasParameter ? null : Transforms.day();
                case "hour" -> hasParameter ? null : Transforms.hour();
                case "bucket" -> hasParameter ? Transforms.bucket(parameter) : null;
                case "truncate" -> hasParameter ? Transforms.truncate(parameter) : null;
                default -> null;
            };
            if (transform == null) {
                throw notAllowed("partitioning term '%s' is not supported; the supported terms are %s"
                        .formatted(term, SUPPORTED));
            }
            return new Term(column.replace("\"", ""), transform, name, parameter);
        }
        Matcher identity = IDENTITY.matcher(term);
        if (identity.matches()) {
            return new Term(identity.group(1), Transforms.identity(), "identity", 0);
        }
        throw notAllowed(
                "partitioning term '%s' is not supported; the supported terms are %s".formatted(term, SUPPORTED));
    }

    private static int parseParameter(String term, String value) {
        try {
            int parameter = Integer.parseInt(value);
            if (parameter > 0) {
                return parameter;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw notAllowed("partitioning term '%s' needs a positive count or width".formatted(term));
    }

    private static void add(PartitionSpec.Builder builder, Term term, String column) {
        switch (term.name()) {
            case "identity" -> builder.identity(column);
            case "year" -> builder.year(column);
            case "month" -> builder.month(column);
            case "day" -> builder.day(column);
            case "hour" -> builder.hour(column);
            case "bucket" -> builder.bucket(column, term.parameter());
            case "truncate" -> builder.truncate(column, term.parameter());
            default -> throw new IllegalStateException("unexpected transform " + term.name());
        }
    }

    private static LakestreamException notAllowed(String message) {
        return new LakestreamException(PARTITIONING_NOT_ALLOWED, "Partitioning not allowed: " + message);
    }
}
