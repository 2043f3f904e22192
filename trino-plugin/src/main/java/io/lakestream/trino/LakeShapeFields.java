package io.lakestream.trino;

import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Bitmap;
import io.trino.spi.block.Block;
import io.trino.spi.block.ColumnarArray;
import io.trino.spi.block.ColumnarMap;
import io.trino.spi.block.RowBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.GroupColumnIO;
import org.apache.parquet.schema.MessageType;

/**
 * Shape fields: a field of a lake file's row read only for the row's shape. Trino's Parquet reader takes a row's
 * nulls, and the entries of a list or map of rows, from the definition and repetition levels of a field it reads; a
 * row none of whose read fields an older file has (they were added after it was written, and its own fields
 * dropped) would give it none. {@link LakeParquetFields} then reads one of the file's fields of that row as an extra
 * last field, and {@link #strip} takes it out of the reader's blocks again, leaving the read fields all null.
 */
final class LakeShapeFields {
    /** The name of the extra field in the reader's row type (never seen outside the file's reader). */
    static final String SHAPE_FIELD = "$shape";

    private LakeShapeFields() {}

    /** The field of the file's row to read for its shape: the one with the fewest column chunks (a value, mostly). */
    static ColumnIO shapeColumn(GroupColumnIO row) {
        if (row.getChildrenCount() == 0) {
            throw new IllegalArgumentException(
                    "row %s of the file has no field".formatted(String.join(".", row.getFieldPath())));
        }
        ColumnIO shape = row.getChild(0);
        for (int i = 1; i < row.getChildrenCount(); i++) {
            if (leaves(row.getChild(i).getType()) < leaves(shape.getType())) {
                shape = row.getChild(i);
            }
        }
        return shape;
    }

    /** The Iceberg type of a field of the file, from its Parquet type (with the file's field ids). */
    static org.apache.iceberg.types.Type icebergType(ColumnIO column) {
        return ParquetSchemaUtil.convert(new MessageType("shape", column.getType()))
                .columns()
                .getFirst()
                .type();
    }

    /**
     * {@code block}, read as {@code read} (with shape fields), as a block of {@code declared}: the same rows, nulls,
     * list and map entries and field values, without the shape fields.
     */
    static Block strip(Block block, Type read, Type declared) {
        if (read.equals(declared)) {
            return block;
        }
        int positions = block.getPositionCount();
        return switch (declared) {
            case RowType row -> {
                List<Block> fields = RowBlock.getRowFieldsFromBlock(block);
                List<Type> readFields = read.getTypeParameters();
                Block[] kept = new Block[row.getFields().size()];
                for (int i = 0; i < kept.length; i++) {
                    // the shape field is the last one read: the declared fields come first, in their order
                    kept[i] = strip(
                            fields.get(i),
                            readFields.get(i),
                            row.getTypeParameters().get(i));
                }
                yield RowBlock.fromNotNullSuppressedFieldBlocks(positions, valid(block), kept);
            }
            case ArrayType array -> {
                ColumnarArray columnar = ColumnarArray.toColumnarArray(block);
                int[] offsets = new int[positions + 1];
                for (int i = 0; i < positions; i++) {
                    offsets[i] = columnar.getOffset(i);
                    offsets[i + 1] = columnar.getOffset(i) + columnar.getLength(i);
                }
                yield ArrayBlock.fromElementBlock(
                        positions,
                        valid(block),
                        offsets,
                        strip(
                                columnar.getElementsBlock(),
                                ((ArrayType) read).getElementType(),
                                array.getElementType()));
            }
            case MapType map -> {
                ColumnarMap columnar = ColumnarMap.toColumnarMap(block);
                int[] offsets = new int[positions + 1];
                for (int i = 0; i < positions; i++) {
                    offsets[i] = columnar.getOffset(i);
                    offsets[i + 1] = columnar.getOffset(i) + columnar.getEntryCount(i);
                }
                MapType readMap = (MapType) read;
                yield map.createBlockFromKeyValue(
                        valid(block),
                        offsets,
                        strip(columnar.getKeysBlock(), readMap.getKeyType(), map.getKeyType()),
                        strip(columnar.getValuesBlock(), readMap.getValueType(), map.getValueType()));
            }
            default -> throw new IllegalArgumentException("%s is not read as %s".formatted(declared, read));
        };
    }

    /** The block's non-null positions as Trino's validity bits; empty if it has no null. */
    private static Optional<long[]> valid(Block block) {
        if (!block.mayHaveNull()) {
            return Optional.empty();
        }
        int positions = block.getPositionCount();
        long[] valid = new long[Bitmap.wordsForBits(positions)];
        for (int i = 0; i < positions; i++) {
            if (!block.isNull(i)) {
                Bitmap.set(valid, 0, i);
            }
        }
        return Optional.of(valid);
    }

    private static int leaves(org.apache.parquet.schema.Type type) {
        return type.isPrimitive()
                ? 1
                : type.asGroupType().getFields().stream()
                        .mapToInt(LakeShapeFields::leaves)
                        .sum();
    }
}
