package io.lakestream.lake;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import java.math.BigDecimal;

/**
 * A value of a lake file written with a wider type than the read's: only a time-travel read of a version before an
 * {@code ALTER} widened the column or field asks for the narrower type, and every value of that time fits it. One
 * that does not was written later (the lake snapshot of the version should not hold it): a coded error rather than a
 * silently wrong value. The one conversion of both lake read paths, the flat columns' decoding and the nested
 * columns' values (docs/format.md "Schema evolution").
 */
public final class NarrowedValues {
    private NarrowedValues() {}

    /** {@code value} of a {@code long} file column read as {@code int}. */
    public static int toInt(long value) {
        if (value != (int) value) {
            throw notNarrowable(Long.toString(value), "int");
        }
        return (int) value;
    }

    /** {@code value} of a {@code double} file column read as {@code float}. */
    public static float toFloat(double value) {
        float narrow = (float) value;
        if (narrow != value && !Double.isNaN(value)) {
            throw notNarrowable(Double.toString(value), "float");
        }
        return narrow;
    }

    /** {@code value} of a wider decimal file column read as {@code decimal(precision, scale)} (the same scale). */
    public static BigDecimal toDecimal(BigDecimal value, int precision) {
        if (value.precision() > precision) {
            throw notNarrowable(value.toPlainString(), "decimal with precision " + precision);
        }
        return value;
    }

    private static LakestreamException notNarrowable(String value, String type) {
        return new LakestreamException(
                LAKE_FILE_UNREADABLE,
                ("A lake file holds %s in a column read as %s: the file was written after the column was widened, and"
                                + " the value does not fit the type of the version read. Read a version after the change")
                        .formatted(value, type));
    }
}
