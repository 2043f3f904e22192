package io.lakestream.benchmarks;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's rows: a mixed order-like schema, generated once before any timing so both sides
 * get the very same objects and generation is never measured.
 */
final class BenchmarkRows {
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()),
            Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "amount", Types.DecimalType.of(10, 2)));

    static final String DESCRIPTION =
            "id bigint, name string (20-40 chars), qty int, price double, ts timestamptz, amount decimal(10,2)";

    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 -_".toCharArray();
    private static final OffsetDateTime START = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

    private BenchmarkRows() {}

    static List<Record> generate(int count) {
        SplittableRandom random = new SplittableRandom(42);
        GenericRecord template = GenericRecord.create(SCHEMA);
        List<Record> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            // copy() shares the template's name index, so each row costs only its values
            GenericRecord row = template.copy();
            row.set(0, (long) i);
            row.set(1, randomName(random));
            row.set(2, random.nextInt(1, 1000));
            row.set(3, random.nextDouble() * 1000);
            row.set(4, START.plusNanos(i * 1_000_000L + random.nextInt(1000) * 1000L));
            row.set(5, BigDecimal.valueOf(random.nextLong(100_000_000L), 2));
            rows.add(row);
        }
        return rows;
    }

    private static String randomName(SplittableRandom random) {
        char[] chars = new char[random.nextInt(20, 41)];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return new String(chars);
    }
}
