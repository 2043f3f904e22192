package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadMode;
import io.trino.spi.TrinoException;
import java.util.Locale;
import java.util.Optional;

/**
 * The views of a table in SQL: {@code t} (union read), {@code "t$lake"}, {@code "t$changes"} and
 * the {@code "t$offsets"} system table.
 *
 * @param baseName the table's name in the catalog
 * @param view which view
 */
public record LakestreamTableName(String baseName, View view) {
    public enum View {
        UNION(""),
        LAKE("lake"),
        CHANGES("changes"),
        OFFSETS("offsets");

        private final String suffix;

        View(String suffix) {
            this.suffix = suffix;
        }

        public String suffix() {
            return suffix;
        }

        /** The read mode of a view read through the page source; empty for the system table. */
        public Optional<ReadMode> readMode() {
            return switch (this) {
                case UNION -> Optional.of(ReadMode.UNION);
                case LAKE -> Optional.of(ReadMode.LAKE);
                case CHANGES -> Optional.of(ReadMode.CHANGES);
                case OFFSETS -> Optional.empty();
            };
        }
    }

    public LakestreamTableName {
        requireNonNull(baseName, "baseName is null");
        requireNonNull(view, "view is null");
    }

    /** The view a name refers to; empty for a name with an unknown {@code $} suffix. */
    public static Optional<LakestreamTableName> parse(String name) {
        int separator = name.indexOf('$');
        if (separator < 0) {
            return Optional.of(new LakestreamTableName(name, View.UNION));
        }
        String suffix = name.substring(separator + 1).toLowerCase(Locale.ROOT);
        for (View view : View.values()) {
            if (view != View.UNION && view.suffix().equals(suffix)) {
                return Optional.of(new LakestreamTableName(name.substring(0, separator), view));
            }
        }
        return Optional.empty();
    }

    /** The error for a name whose table exists but whose suffix names no view of it. */
    public static TrinoException unknownView(String name) {
        return new TrinoException(
                LAKESTREAM_TABLE_NOT_FOUND,
                "Table '%s' does not exist: '%s' is not a view of a Lakestream table; use $lake, $changes or $offsets"
                        .formatted(name, name.substring(name.indexOf('$'))));
    }

    public static String format(String baseName, ReadMode mode) {
        return switch (mode) {
            case UNION -> baseName;
            case LAKE -> baseName + "$" + View.LAKE.suffix();
            case CHANGES -> baseName + "$" + View.CHANGES.suffix();
        };
    }
}
