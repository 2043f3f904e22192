package io.lakestream.merge;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Turns a batch plus a selection into an output batch of the selected rows and output columns.
 * Whole batches are transferred without copying; otherwise runs of consecutive selected rows are
 * copied buffer range by buffer range, not value by value (the merge drops few, scattered rows).
 */
final class BatchCompactor {
    private BatchCompactor() {}

    /**
     * @param columns positions in {@code source} of the output columns, in output order
     * @param fields the output fields (names as the reader asked for them)
     */
    static VectorSchemaRoot compact(
            VectorSchemaRoot source,
            Selection selection,
            int[] columns,
            List<Field> fields,
            BufferAllocator allocator) {
        if (selection.size() == source.getRowCount()) {
            return project(source, columns, fields, allocator);
        }
        List<FieldVector> vectors = new ArrayList<>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            FieldVector from = source.getVector(columns[i]);
            FieldVector to = fields.get(i).createVector(allocator);
            copyRows(from, to, selection);
            vectors.add(to);
        }
        return new VectorSchemaRoot(fields, vectors, selection.size());
    }

    /** The output columns of all rows of {@code source}, transferred without copying. */
    static VectorSchemaRoot project(
            VectorSchemaRoot source, int[] columns, List<Field> fields, BufferAllocator allocator) {
        List<FieldVector> vectors = new ArrayList<>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            TransferPair transfer =
                    source.getVector(columns[i]).getTransferPair(fields.get(i).getName(), allocator);
            transfer.splitAndTransfer(0, source.getRowCount());
            vectors.add((FieldVector) transfer.getTo());
        }
        return new VectorSchemaRoot(fields, vectors, source.getRowCount());
    }

    /** A new vector (same field) of the selected rows of {@code from}. */
    static FieldVector copy(FieldVector from, Selection selection, BufferAllocator allocator) {
        FieldVector to = from.getField().createVector(allocator);
        try {
            copyRows(from, to, selection);
        } catch (RuntimeException e) {
            to.close();
            throw e;
        }
        return to;
    }

    private static void copyRows(FieldVector from, FieldVector to, Selection selection) {
        int rows = selection.size();
        if (from instanceof BaseFixedWidthVector fixed && !(from instanceof BitVector)) {
            copyFixedWidth(fixed, (BaseFixedWidthVector) to, selection);
        } else if (from instanceof BaseVariableWidthVector variable) {
            copyVariableWidth(variable, (BaseVariableWidthVector) to, selection);
        } else {
            to.setInitialCapacity(rows);
            to.allocateNew();
            for (int row = 0; row < rows; row++) {
                to.copyFromSafe(selection.row(row), row, from);
            }
        }
        to.setValueCount(rows);
    }

    private static void copyFixedWidth(BaseFixedWidthVector from, BaseFixedWidthVector to, Selection selection) {
        int rows = selection.size();
        int width = from.getTypeWidth();
        boolean noNulls = from.getNullCount() == 0;
        to.allocateNew(Math.max(rows, 1));
        ArrowBuf source = from.getDataBuffer();
        ArrowBuf target = to.getDataBuffer();
        for (int i = 0; i < rows; ) {
            int first = selection.row(i);
            int run = runLength(selection, i);
            target.setBytes((long) i * width, source, (long) first * width, (long) run * width);
            copyValidity(from, to, first, i, run, noNulls);
            i += run;
        }
    }

    private static void copyVariableWidth(
            BaseVariableWidthVector from, BaseVariableWidthVector to, Selection selection) {
        int rows = selection.size();
        long bytes = 0;
        for (int i = 0; i < rows; i++) {
            bytes += from.getValueLength(selection.row(i));
        }
        to.allocateNew(Math.max(bytes, 1), Math.max(rows, 1));
        boolean noNulls = from.getNullCount() == 0;
        ArrowBuf sourceOffsets = from.getOffsetBuffer();
        ArrowBuf targetOffsets = to.getOffsetBuffer();
        ArrowBuf targetData = to.getDataBuffer();
        int written = 0;
        targetOffsets.setInt(0, 0);
        for (int i = 0; i < rows; ) {
            int first = selection.row(i);
            int run = runLength(selection, i);
            int start = sourceOffsets.getInt((long) first * BaseVariableWidthVector.OFFSET_WIDTH);
            int end = sourceOffsets.getInt((long) (first + run) * BaseVariableWidthVector.OFFSET_WIDTH);
            targetData.setBytes(written, from.getDataBuffer(), start, end - start);
            for (int k = 1; k <= run; k++) {
                int sourceEnd = sourceOffsets.getInt((long) (first + k) * BaseVariableWidthVector.OFFSET_WIDTH);
                targetOffsets.setInt(
                        (long) (i + k) * BaseVariableWidthVector.OFFSET_WIDTH, written + sourceEnd - start);
            }
            copyValidity(from, to, first, i, run, noNulls);
            written += end - start;
            i += run;
        }
        to.setLastSet(rows - 1);
    }

    private static void copyValidity(
            FieldVector from, FieldVector to, int sourceRow, int targetRow, int run, boolean noNulls) {
        if (noNulls) {
            setValid(to.getValidityBuffer(), targetRow, run);
            return;
        }
        ArrowBuf source = from.getValidityBuffer();
        ArrowBuf target = to.getValidityBuffer();
        for (int k = 0; k < run; k++) {
            BitVectorHelper.setValidityBit(target, targetRow + k, BitVectorHelper.get(source, sourceRow + k));
        }
    }

    /** Sets the validity bits of rows {@code [first, first + count)}: whole bytes at once. */
    private static void setValid(ArrowBuf validity, int first, int count) {
        int row = first;
        int end = first + count;
        for (; row < end && (row & 7) != 0; row++) {
            BitVectorHelper.setBit(validity, row);
        }
        int bytes = (end - row) >>> 3;
        if (bytes > 0) {
            validity.setOne(row >>> 3, bytes);
            row += bytes << 3;
        }
        for (; row < end; row++) {
            BitVectorHelper.setBit(validity, row);
        }
    }

    /** How many selected rows from position {@code i} on are consecutive rows of the source. */
    private static int runLength(Selection selection, int i) {
        int first = selection.row(i);
        int run = 1;
        while (i + run < selection.size() && selection.row(i + run) == first + run) {
            run++;
        }
        return run;
    }
}
