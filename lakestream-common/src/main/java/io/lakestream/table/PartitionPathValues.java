package io.lakestream.table;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A partition's values read back from its partition path (the log names partitions by the lake's path, e.g. {@code
 * ts_day=2026-12-01/region=eu}): the inverse of {@link PartitionSpec#partitionToPath}, used by log partition pruning
 * and partition expiry.
 */
public final class PartitionPathValues {
    private static final LocalDate EPOCH = LocalDate.of(1970, 1, 1);

    private PartitionPathValues() {}

    /**
     * The partition's values (Iceberg's internal representation of each field's result type) from its path; {@code
     * IllegalArgumentException} (or a parse error) for a path of another shape.
     */
    public static StructLike values(PartitionSpec spec, String path) {
        List<PartitionField> fields = spec.fields();
        String[] parts = path.split("/", -1);
        if (parts.length != fields.size()) {
            throw new IllegalArgumentException(
                    "partition path %s does not have %s fields".formatted(path, fields.size()));
        }
        Types.StructType type = spec.partitionType();
        GenericRecord values = GenericRecord.create(type);
        for (int i = 0; i < fields.size(); i++) {
            String part = parts[i];
            int equals = part.indexOf('=');
            String human = URLDecoder.decode(part.substring(equals + 1), StandardCharsets.UTF_8);
            values.set(i, parse(fields.get(i), type.fields().get(i).type(), human));
        }
        return values;
    }

    /** A transform's human string back to its value: the inverse of {@code Transform.toHumanString}. */
    private static Object parse(PartitionField field, Type type, String human) {
        if (human.equals("null")) {
            return null;
        }
        String transform = field.transform().toString();
        if (transform.equals("identity") && type.typeId() == Type.TypeID.TIMESTAMP) {
            // Iceberg's partition strings have no timestamps: its human string is ISO-8601 (LocalDateTime's, or
            // OffsetDateTime's in UTC with a zone), read back here to microseconds
            return ((Types.TimestampType) type).shouldAdjustToUTC()
                    ? ChronoUnit.MICROS.between(
                            Instant.EPOCH, OffsetDateTime.parse(human).toInstant())
                    : ChronoUnit.MICROS.between(EPOCH.atStartOfDay(), LocalDateTime.parse(human));
        }
        return switch (transform) {
            case "year" -> (int) ChronoUnit.YEARS.between(EPOCH, LocalDate.of(Integer.parseInt(human), 1, 1));
            case "month" -> (int) ChronoUnit.MONTHS.between(EPOCH, LocalDate.parse(human + "-01"));
            case "day" -> (int) LocalDate.parse(human).toEpochDay();
            case "hour" -> {
                int lastDash = human.lastIndexOf('-');
                LocalDateTime hour = LocalDate.parse(human.substring(0, lastDash))
                        .atTime(Integer.parseInt(human.substring(lastDash + 1)), 0);
                yield (int) (hour.toEpochSecond(ZoneOffset.UTC) / 3600);
            }
            default -> Conversions.fromPartitionString(type, human);
        };
    }
}
