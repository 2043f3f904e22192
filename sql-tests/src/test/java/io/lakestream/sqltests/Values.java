package io.lakestream.sqltests;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/** Engine values made comparable: the same SQL value reads the same from Trino and from Spark. */
final class Values {
    private Values() {}

    static Object normalize(Object value) {
        return switch (value) {
            case null -> null;
            case Byte b -> b.intValue();
            case Short s -> s.intValue();
            case java.sql.Date date -> date.toLocalDate();
            case java.sql.Timestamp timestamp -> timestamp.toInstant();
            case byte[] bytes -> HexFormat.of().formatHex(bytes);
            case BigDecimal decimal -> decimal;
            default -> value;
        };
    }

    /** One row as text: values separated by {@code " | "}, SQL NULL as {@code NULL}. */
    static String format(List<Object> row) {
        return row.stream().map(v -> v == null ? "NULL" : v.toString()).collect(Collectors.joining(" | "));
    }

    static List<String> format(List<List<Object>> rows, boolean ordered) {
        List<String> lines = new ArrayList<>();
        for (List<Object> row : rows) {
            lines.add(format(row));
        }
        if (!ordered) {
            lines.sort(Comparator.naturalOrder());
        }
        return lines;
    }
}
