package io.lakestream.trino;

import static io.trino.parquet.ParquetTypeUtils.getArrayElementColumn;
import static io.trino.parquet.ParquetTypeUtils.getMapKeyValueColumn;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnById;

import io.trino.parquet.Field;
import io.trino.parquet.GroupField;
import io.trino.parquet.PrimitiveField;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.GroupColumnIO;
import org.apache.parquet.io.PrimitiveColumnIO;
import org.apache.parquet.schema.GroupType;

/**
 * The reader's {@link Field} tree of a nested lake column (array, map, row), built from the file's column IO by
 * Iceberg field id: the struct fields of the read type are looked up by id among the file's children, so a field
 * renamed after the file was written is read under its new name, a field the file lacks reads as nulls, and a struct
 * narrowed to the fields a query dereferences ({@link io.lakestream.merge.NestedPruning}) reads only their column
 * chunks. Trino's own {@code ParquetTypeUtils.constructField} matches children by name, which is why it is not used
 * for nested columns.
 */
final class LakeParquetFields {
    private LakeParquetFields() {}

    /**
     * The field of {@code column} read as {@code readType}; empty if the file holds none of the struct fields read
     * (every value is then null).
     *
     * @throws IllegalArgumentException if the file's column has another shape (say a list where a struct is read)
     */
    static Optional<Field> field(Type readType, ColumnIO column) {
        if (column == null) {
            return Optional.empty();
        }
        boolean required = column.getType().getRepetition() != org.apache.parquet.schema.Type.Repetition.OPTIONAL;
        io.trino.spi.type.Type trinoType = LakestreamTypes.toTrinoType(readType);
        if (readType.isPrimitiveType()) {
            PrimitiveColumnIO primitive = primitive(column);
            return Optional.of(
                    new PrimitiveField(trinoType, required, primitive.getColumnDescriptor(), primitive.getId()));
        }
        GroupColumnIO group = group(column);
        List<Optional<Field>> children = new ArrayList<>();
        switch (readType.typeId()) {
            case STRUCT -> {
                for (Types.NestedField child : readType.asStructType().fields()) {
                    children.add(field(child.type(), lookupColumnById(group, child.fieldId())));
                }
                if (children.stream().noneMatch(Optional::isPresent)) {
                    return Optional.empty();
                }
            }
            case LIST -> {
                if (group.getChildrenCount() != 1) {
                    throw shape(readType, column);
                }
                children.add(Optional.of(element(
                        readType.asListType().elementType(), getArrayElementColumn(group.getChild(0)), column)));
            }
            case MAP -> {
                GroupColumnIO keyValue = getMapKeyValueColumn(group);
                if (keyValue.getChildrenCount() != 2) {
                    throw shape(readType, column);
                }
                children.add(Optional.of(element(readType.asMapType().keyType(), keyValue.getChild(0), column)));
                children.add(Optional.of(element(readType.asMapType().valueType(), keyValue.getChild(1), column)));
            }
            default -> throw shape(readType, column);
        }
        return Optional.of(new GroupField(
                trinoType, column.getRepetitionLevel(), column.getDefinitionLevel(), required, children));
    }

    /** Calls {@code consumer} with each Parquet column (leaf) the field reads. */
    static void forEachLeaf(Field field, Consumer<ColumnDescriptor> consumer) {
        if (field instanceof PrimitiveField primitive) {
            consumer.accept(primitive.getDescriptor());
        } else if (field instanceof GroupField group) {
            group.getChildren().forEach(child -> child.ifPresent(present -> forEachLeaf(present, consumer)));
        }
    }

    /**
     * The path (the file's names) of the leaf a dereference reads: {@code ids} are the field ids from the file's
     * top-level column {@code column} down, through structs only; empty if the file lacks a field on the way.
     */
    static Optional<List<String>> leafPath(org.apache.parquet.schema.Type column, List<Integer> ids) {
        List<String> path = new ArrayList<>(List.of(column.getName()));
        org.apache.parquet.schema.Type current = column;
        for (int id : ids) {
            if (current.isPrimitive()) {
                return Optional.empty();
            }
            Optional<org.apache.parquet.schema.Type> child = childById(current.asGroupType(), id);
            if (child.isEmpty()) {
                return Optional.empty();
            }
            current = child.get();
            path.add(current.getName());
        }
        return current.isPrimitive() ? Optional.of(List.copyOf(path)) : Optional.empty();
    }

    private static Optional<org.apache.parquet.schema.Type> childById(GroupType group, int id) {
        return group.getFields().stream()
                .filter(child -> child.getId() != null && child.getId().intValue() == id)
                .findFirst();
    }

    /** A list element, map key or map value: a list or map of structs none of whose fields the file has is refused. */
    private static Field element(Type readType, ColumnIO column, ColumnIO parent) {
        return field(readType, column).orElseThrow(() -> shape(readType, parent));
    }

    private static PrimitiveColumnIO primitive(ColumnIO column) {
        if (column instanceof PrimitiveColumnIO primitive) {
            return primitive;
        }
        throw new IllegalArgumentException(
                "column %s is a group, not a value".formatted(String.join(".", column.getFieldPath())));
    }

    private static GroupColumnIO group(ColumnIO column) {
        if (column instanceof GroupColumnIO group) {
            return group;
        }
        throw new IllegalArgumentException(
                "column %s is a value, not a group".formatted(String.join(".", column.getFieldPath())));
    }

    private static IllegalArgumentException shape(Type readType, ColumnIO column) {
        return new IllegalArgumentException(
                "column %s cannot be read as %s".formatted(String.join(".", column.getFieldPath()), readType));
    }
}
