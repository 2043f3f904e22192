package io.lakestream.trino;

import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Block;
import io.trino.spi.block.MapBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Converts an Arrow list, map or struct vector of the log's layout ({@code NestedArrowFields}) into a Trino
 * array, map or row block: the offsets are copied, the children converted by {@link ArrowBlockConverter} (an
 * array's elements, a map's keys and values, a row's fields, each as one block). A null struct has null fields
 * in the log, as Trino's not-null-suppressed row blocks require.
 */
sealed interface NestedBlockConverter {
    Block convert(FieldVector vector, int rows);

    static NestedBlockConverter forType(Type type) {
        return switch (type) {
            case ArrayType array -> new ArrayConverter(Child.of(array.getElementType()));
            case MapType map -> new MapConverter(map, Child.of(map.getKeyType()), Child.of(map.getValueType()));
            case RowType row ->
                new RowConverter(row.getTypeParameters().stream()
                        .map(ArrowBlockConverter::forType)
                        .toArray(ArrowBlockConverter[]::new));
            default -> throw new IllegalArgumentException("not a nested type: " + type);
        };
    }

    /** The {@code rows + 1} offsets of a list (or map) vector (all 0 when it has no offsets buffer: no values). */
    private static int[] offsets(ListVector vector, int rows) {
        int[] offsets = new int[rows + 1];
        if (vector.getOffsetBuffer().capacity() == 0) {
            return offsets;
        }
        for (int row = 0; row <= rows; row++) {
            offsets[row] = vector.getOffsetBuffer().getInt((long) row * BaseRepeatedValueVector.OFFSET_WIDTH);
        }
        return offsets;
    }

    /**
     * The values of a list or map: none is an empty block (the child vector may then have no buffers at all, e.g.
     * in a batch of null and empty arrays only).
     */
    record Child(Type type, ArrowBlockConverter converter) {
        static Child of(Type type) {
            return new Child(type, ArrowBlockConverter.forType(type));
        }

        Block convert(FieldVector vector, int count) {
            return count == 0 ? type.createBlockBuilder(null, 0).build() : converter.convert(vector, count);
        }
    }

    record ArrayConverter(Child elements) implements NestedBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ListVector list = (ListVector) vector;
            int[] offsets = offsets(list, rows);
            Block values = elements.convert(list.getDataVector(), offsets[rows]);
            return ArrayBlock.fromElementBlock(rows, ArrowBlockConverter.validity(vector, rows), offsets, values);
        }
    }

    record MapConverter(MapType type, Child keys, Child values) implements NestedBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ListVector map = (ListVector) vector;
            int[] offsets = offsets(map, rows);
            List<FieldVector> entries = ((StructVector) map.getDataVector()).getChildrenFromFields();
            int entryCount = offsets[rows];
            return MapBlock.fromKeyValueBlock(
                    ArrowBlockConverter.validity(vector, rows),
                    offsets,
                    keys.convert(entries.get(0), entryCount),
                    values.convert(entries.get(1), entryCount),
                    type);
        }
    }

    record RowConverter(ArrowBlockConverter[] fields) implements NestedBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            List<FieldVector> children = ((StructVector) vector).getChildrenFromFields();
            Block[] blocks = new Block[fields.length];
            for (int i = 0; i < fields.length; i++) {
                blocks[i] = fields[i].convert(children.get(i), rows);
            }
            return RowBlock.fromNotNullSuppressedFieldBlocks(rows, ArrowBlockConverter.validity(vector, rows), blocks);
        }
    }
}
