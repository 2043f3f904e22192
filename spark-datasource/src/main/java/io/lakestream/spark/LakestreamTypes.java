package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.ChangeColumns;
import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;

/**
 * Maps Lakestream (Iceberg) column types to Spark types and back. Iceberg {@code uuid} reads as a
 * Spark string and {@code fixed(n)} as binary, as Iceberg's own Spark integration does; {@code time}
 * has no stable Spark type in 4.1 and is refused with a clear error.
 */
final class LakestreamTypes {
    private LakestreamTypes() {}

    static StructType sparkSchema(Schema schema) {
        List<StructField> fields = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            fields.add(sparkField(column));
        }
        return new StructType(fields.toArray(StructField[]::new));
    }

    static StructField sparkField(Types.NestedField column) {
        return new StructField(
                column.name(), sparkType(column.name(), column.type()), column.isOptional(), metadata(column));
    }

    /** The schema of the changes read mode: the change columns, then the user columns. */
    static StructType changesSchema(TableDefinition definition) {
        List<StructField> fields = new ArrayList<>(changeFields(definition));
        fields.addAll(List.of(sparkSchema(definition.schema()).fields()));
        return new StructType(fields.toArray(StructField[]::new));
    }

    /**
     * The change columns of the table ({@link ChangeColumns#fields}: {@code _partition} after {@code _bucket} for a
     * partitioned table). Bucket, partition, offset and commit time are nullable: the rows of a table's state that a
     * stream starting in mode {@code full} emits first come from no single change (a lake row has no offset).
     */
    static List<StructField> changeFields(TableDefinition definition) {
        return changeFields(ChangeColumns.hasPartition(definition));
    }

    static List<StructField> changeFields(boolean withPartition) {
        List<StructField> fields = new ArrayList<>(List.of(
                new StructField(ChangeColumns.CHANGE_TYPE, DataTypes.StringType, false, Metadata.empty()),
                new StructField(ChangeColumns.BUCKET, DataTypes.IntegerType, true, Metadata.empty())));
        if (withPartition) {
            fields.add(new StructField(ChangeColumns.PARTITION, DataTypes.StringType, true, Metadata.empty()));
        }
        fields.add(new StructField(ChangeColumns.OFFSET, DataTypes.LongType, true, Metadata.empty()));
        fields.add(new StructField(ChangeColumns.COMMIT_TIMESTAMP, DataTypes.TimestampType, true, Metadata.empty()));
        return List.copyOf(fields);
    }

    /** Whether rows of {@code schema} (change columns first) carry {@code _partition}: it is then the third column. */
    static boolean hasPartitionColumn(StructType schema) {
        return schema.fields().length > 2 && schema.fields()[2].name().equals(ChangeColumns.PARTITION);
    }

    static DataType sparkType(String column, Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> DataTypes.BooleanType;
            case INTEGER -> DataTypes.IntegerType;
            case LONG -> DataTypes.LongType;
            case FLOAT -> DataTypes.FloatType;
            case DOUBLE -> DataTypes.DoubleType;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield DataTypes.createDecimalType(decimal.precision(), decimal.scale());
            }
            case DATE -> DataTypes.DateType;
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC() ? DataTypes.TimestampType : DataTypes.TimestampNTZType;
            case STRING, UUID -> DataTypes.StringType;
            case FIXED, BINARY -> DataTypes.BinaryType;
            default ->
                LakestreamNestedTypes.sparkType(column, type)
                        .orElseThrow(() -> new LakestreamException(
                                UNSUPPORTED_OPERATION,
                                "Column '%s' has type %s, which Spark cannot read from Lakestream yet; read it through Trino or cast it in a view"
                                        .formatted(column, type)));
        };
    }

    /**
     * The Iceberg schema for a Spark {@code CREATE TABLE}: field ids 1..n in column order; primary
     * key columns are NOT NULL, as a SQL primary key implies.
     */
    static Schema icebergSchema(Column[] columns, Set<String> primaryKey) {
        List<Types.NestedField> fields = new ArrayList<>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            Column column = columns[i];
            Type type = icebergType(column.name(), column.dataType());
            boolean required = !column.nullable() || primaryKey.contains(column.name());
            fields.add(Types.NestedField.builder()
                    .withId(i + 1)
                    .withName(column.name())
                    .isOptional(!required)
                    .ofType(type)
                    .withDoc(column.comment())
                    .build());
        }
        // nested types carry placeholder ids: fresh ids, top-level columns first (1..n, as before), then nested fields
        Types.StructType fresh = (Types.StructType)
                TypeUtil.assignFreshIds(Types.StructType.of(fields), new AtomicInteger()::incrementAndGet);
        return new Schema(fresh.fields());
    }

    static Type icebergType(String column, DataType type) {
        return switch (type) {
            case BooleanType ignored -> Types.BooleanType.get();
            // Iceberg has no 8- or 16-bit integers; Spark casts them on write and reads back int
            case ByteType ignored -> Types.IntegerType.get();
            case ShortType ignored -> Types.IntegerType.get();
            case IntegerType ignored -> Types.IntegerType.get();
            case LongType ignored -> Types.LongType.get();
            case FloatType ignored -> Types.FloatType.get();
            case DoubleType ignored -> Types.DoubleType.get();
            case DecimalType decimal -> Types.DecimalType.of(decimal.precision(), decimal.scale());
            case DateType ignored -> Types.DateType.get();
            case TimestampType ignored -> Types.TimestampType.withZone();
            case TimestampNTZType ignored -> Types.TimestampType.withoutZone();
            // before StringType, which CharType and VarcharType extend in Spark 4: Spark hands CHAR(n) and
            // VARCHAR(n) to the catalog as they are (docs/decisions.md, "CHAR and VARCHAR from Spark")
            case CharType charType -> throw charRefused(column, charType);
            // the length is not kept, as Trino stores varchar(n) as varchar: both engines read the same strings
            case VarcharType ignored -> Types.StringType.get();
            case StringType ignored -> Types.StringType.get();
            case BinaryType ignored -> Types.BinaryType.get();
            default ->
                LakestreamNestedTypes.icebergType(column, type)
                        .orElseThrow(() -> new LakestreamException(
                                INVALID_TABLE_DEFINITION,
                                "Column '%s' has Spark type %s, which a Lakestream table cannot hold; use boolean, int, bigint, float, double, decimal, date, timestamp, timestamp_ntz, string, binary, or array, map and struct of these"
                                        .formatted(column, type.sql())));
        };
    }

    /**
     * CHAR(n) is refused rather than stored as a string: Spark pads and length-checks a CHAR column only when the
     * table reports one, Iceberg has no such type to report, and Trino refuses char(n) too; a silent string would
     * read back unpadded in Spark and differently from what the user declared.
     */
    private static LakestreamException charRefused(String column, CharType type) {
        return new LakestreamException(
                INVALID_TABLE_DEFINITION,
                ("Column '%s' has Spark type %s, which a Lakestream table cannot hold (neither Spark nor Trino would pad it "
                                + "to %d characters on read); use STRING or VARCHAR(n) (stored as string, the length not checked), "
                                + "or another of the supported types: boolean, int, bigint, float, double, decimal, date, "
                                + "timestamp, timestamp_ntz, string, binary, and array, map and struct of these")
                        .formatted(column, type.sql(), type.length()));
    }

    private static Metadata metadata(Types.NestedField column) {
        return column.doc() == null
                ? Metadata.empty()
                : new org.apache.spark.sql.types.MetadataBuilder()
                        .putString("comment", column.doc())
                        .build();
    }
}
