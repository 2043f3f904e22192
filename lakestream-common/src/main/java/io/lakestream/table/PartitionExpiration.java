package io.lakestream.table;

import static io.lakestream.common.LakestreamError.PARTITION_EXPIRATION_INVALID;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.Durations;
import io.lakestream.common.LakestreamException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;

/**
 * The table property {@link #PROPERTY}: partitions whose time range ended more than a retention ago expire (the
 * tiering service removes them from the log once tiered, then from the lake; docs/tiering.md "Partition expiry").
 *
 * <p>A partition is dated by its <em>time fields</em>: the user partition fields with a {@code year}, {@code month},
 * {@code day} or {@code hour} transform, or the identity of a {@code date} column. Its upper bound is the exclusive
 * end of the latest of their ranges (a timestamp without zone is read as UTC), so a partition expires only once
 * every time field of it lies before {@code now - retention}. A partition with a null time value never expires.
 *
 * @param retention how long after its upper bound a partition is kept
 * @param timeFields indexes of the time fields in the user partition spec
 */
public record PartitionExpiration(Duration retention, List<Integer> timeFields) {
    /** The table property: a duration, {@code 30d} (also {@code ms}, {@code s}, {@code m}, {@code h}) or ISO-8601 {@code P30D}. */
    public static final String PROPERTY = "lakestream.partition.expiration";

    private static final String ACCEPTED =
            "a positive duration such as '30d', '12h', '90m' (units ms, s, m, h, d) or ISO-8601 such as 'P30D', 'PT12H'";

    public PartitionExpiration {
        requireNonNull(retention, "retention is null");
        timeFields = ImmutableList.copyOf(timeFields);
    }

    /**
     * The table's expiration, if its properties set one; {@code PARTITION_EXPIRATION_INVALID} for a value that is not
     * a positive duration, or a table without a time field to date its partitions by.
     */
    public static Optional<PartitionExpiration> of(
            String table, List<PartitionField> userFields, Schema schema, Map<String, String> properties) {
        String value = properties.get(PROPERTY);
        if (value == null) {
            return Optional.empty();
        }
        Duration retention = parseRetention(table, value);
        List<Integer> timeFields = new ArrayList<>();
        for (int i = 0; i < userFields.size(); i++) {
            if (isTimeField(userFields.get(i), schema)) {
                timeFields.add(i);
            }
        }
        if (timeFields.isEmpty()) {
            throw new LakestreamException(
                    PARTITION_EXPIRATION_INVALID,
                    ("Table %s sets '%s' but is not partitioned by time: expiry needs a partition field year(c), month(c),"
                                    + " day(c) or hour(c) of a date or timestamp column, or a date column c itself;"
                                    + " partition the table by one or remove the property")
                            .formatted(table, PROPERTY));
        }
        return Optional.of(new PartitionExpiration(retention, timeFields));
    }

    /** The table's expiration as its definition and Iceberg properties say. */
    public static Optional<PartitionExpiration> of(
            String table, TableDefinition definition, Map<String, String> properties) {
        return of(table, definition.partitionFields(), definition.schema(), properties);
    }

    static Duration parseRetention(String table, String value) {
        return parseRetention(table, "'%s'".formatted(PROPERTY), value);
    }

    /**
     * A retention in the property's syntax given as {@code setting} (named in the error), e.g. the {@code retention}
     * argument of an on-demand expiry; {@code PARTITION_EXPIRATION_INVALID} unless it is a positive duration.
     */
    public static Duration parseRetention(String table, String setting, String value) {
        Duration retention;
        try {
            String text = value.trim();
            retention = text.regionMatches(true, 0, "P", 0, 1) ? Duration.parse(text) : Durations.parse(text);
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw invalidValue(table, setting, value);
        }
        if (retention.isNegative() || retention.isZero()) {
            throw invalidValue(table, setting, value);
        }
        return retention;
    }

    private static LakestreamException invalidValue(String table, String setting, String value) {
        return new LakestreamException(
                PARTITION_EXPIRATION_INVALID,
                "Table %s: %s = '%s' is not a valid expiration; use %s".formatted(table, setting, value, ACCEPTED));
    }

    private static boolean isTimeField(PartitionField field, Schema schema) {
        String transform = field.transform().toString();
        if (transform.equals("year")
                || transform.equals("month")
                || transform.equals("day")
                || transform.equals("hour")) {
            return true;
        }
        Type source = schema.findType(field.sourceId());
        return transform.equals("identity") && source != null && source.typeId() == Type.TypeID.DATE;
    }

    /**
     * The exclusive upper bound of the partition with these values of {@code userSpec} (the user partition spec):
     * the end of the latest time field's range; empty when a time field is null.
     */
    public Optional<Instant> upperBound(PartitionSpec userSpec, StructLike values) {
        Instant latest = null;
        for (int index : timeFields) {
            Integer value = values.get(index, Integer.class);
            if (value == null) {
                return Optional.empty();
            }
            Instant end = endOf(userSpec.fields().get(index).transform().toString(), value);
            latest = latest == null || end.isAfter(latest) ? end : latest;
        }
        return Optional.ofNullable(latest);
    }

    /** Whether the partition at {@code path} of {@code userSpec} ended before {@code now - retention}. */
    public boolean expired(PartitionSpec userSpec, String path, Instant now) {
        Optional<Instant> bound = upperBound(userSpec, PartitionPathValues.values(userSpec, path));
        return bound.isPresent() && !bound.get().isAfter(now.minus(retention));
    }

    private static Instant endOf(String transform, int value) {
        LocalDate epoch = LocalDate.of(1970, 1, 1);
        return switch (transform) {
            case "year" -> epoch.plusYears(value + 1L).atStartOfDay().toInstant(ZoneOffset.UTC);
            case "month" -> epoch.plusMonths(value + 1L).atStartOfDay().toInstant(ZoneOffset.UTC);
            case "hour" -> Instant.EPOCH.plusSeconds((value + 1L) * 3600);
            // day(c), or the identity of a date: days since the epoch
            default -> epoch.plusDays(value + 1L).atStartOfDay().toInstant(ZoneOffset.UTC);
        };
    }
}
