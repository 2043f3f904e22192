package io.lakestream.tiering.parquet;

import java.util.Arrays;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Predicts from a sample of a column whether parquet-mr would give up dictionary encoding for it anyway.
 * parquet-mr dictionary-encodes the first page of every column chunk, then keeps the dictionary only if
 * {@code dictionary bytes + encoded bytes < plain bytes}, and otherwise re-encodes the page plainly. For a
 * mostly unique column (an id, a name) that trial costs more than writing the column: hashing and copying
 * every value of the first page, then encoding it again (a third of the writer threads' time in a profiled
 * round). When the sample predicts the fallback with a margin, tiering writes the column plainly from the
 * start, which is the same encoding parquet-mr would have fallen back to, so the file does not change.
 *
 * <p>The page's distinct count is extrapolated from the sample with the usual occupancy estimate: a column
 * drawn from {@code K} values shows {@code K (1 - e^(-m/K))} distinct values in {@code m} rows.
 */
public final class DictionaryPredictor {
    /** Rows sampled per column: enough to tell "mostly unique" from "repeating" cheaply. */
    static final int SAMPLE_ROWS = 4096;

    /** Predicted dictionary pages must be this much larger than plain ones before the dictionary is dropped. */
    private static final double MARGIN = 1.05;

    private DictionaryPredictor() {}

    /**
     * @param vector the column's values, of Iceberg type {@code type}
     * @param rows rows in the vector
     * @param pageRowLimit the writer's page row limit ({@code write.parquet.page-row-limit})
     * @param pageSizeBytes the writer's page size ({@code write.parquet.page-size-bytes})
     */
    public static boolean wouldFallBack(FieldVector vector, int rows, Type type, int pageRowLimit, long pageSizeBytes) {
        if (type.typeId() == Type.TypeID.BOOLEAN) {
            return false; // never dictionary-encoded
        }
        int limit = Math.min(rows, SAMPLE_ROWS);
        int[] hashes = new int[limit];
        long variableBytes = 0;
        int sampled = 0;
        for (int i = 0; i < limit; i++) {
            if (vector.isNull(i)) {
                continue;
            }
            hashes[sampled++] = vector.hashCode(i);
            if (vector instanceof BaseVariableWidthVector variable) {
                variableBytes += variable.getValueLength(i);
            }
        }
        int distinct = distinctCount(hashes, sampled);
        // A small or mostly repeating sample: leave the decision to parquet-mr.
        if (sampled < 256 || distinct < 0.9 * sampled) {
            return false;
        }
        double plainBytes =
                vector instanceof BaseVariableWidthVector ? 4 + (double) variableBytes / sampled : plainWidth(type);
        double pageRows = Math.max(1, Math.min(pageRowLimit, pageSizeBytes / plainBytes));
        double pageDistinct = pageDistinct(sampled, distinct, pageRows);
        double idBits = Math.max(1, Math.ceil(Math.log(pageDistinct) / Math.log(2)));
        double dictionaryPage = pageDistinct * plainBytes + pageRows * idBits / 8;
        return dictionaryPage >= MARGIN * pageRows * plainBytes;
    }

    /**
     * Distinct values among {@code values[0, count)}, by sorting them in place: a {@code HashSet} of boxed
     * hash codes was a fifth of the prediction, which runs for every column of every task.
     */
    static int distinctCount(int[] values, int count) {
        Arrays.sort(values, 0, count);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (i == 0 || values[i] != values[i - 1]) {
                distinct++;
            }
        }
        return distinct;
    }

    /** Expected distinct values in {@code pageRows} rows, given {@code distinct} of {@code sampled} in the sample. */
    static double pageDistinct(int sampled, int distinct, double pageRows) {
        if (distinct >= sampled) {
            return pageRows; // no repeat seen: as unique as the sample can tell
        }
        // Solve K (1 - e^(-m/K)) = u for K (increasing in K) by bisection.
        double low = distinct;
        double high = 1e12;
        for (int i = 0; i < 100; i++) {
            double middle = (low + high) / 2;
            if (middle * -Math.expm1(-sampled / middle) < distinct) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return Math.min(pageRows, low * -Math.expm1(-pageRows / low));
    }

    private static double plainWidth(Type type) {
        return switch (type.typeId()) {
            case INTEGER, DATE, FLOAT -> 4;
            case LONG, DOUBLE, TIME, TIMESTAMP, TIMESTAMP_NANO -> 8;
            case UUID -> 16;
            case FIXED -> ((Types.FixedType) type).length();
            case DECIMAL -> {
                int precision = ((Types.DecimalType) type).precision();
                yield precision <= 9 ? 4 : precision <= 18 ? 8 : TypeUtil.decimalRequiredBytes(precision);
            }
            default -> 8;
        };
    }
}
