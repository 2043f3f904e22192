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
 * chunks. A row the file has none of whose read fields it has (fields dropped after others were added) still has its
 * nulls, and in a list or map its entries: one of the file's fields is read for them ({@link LakeShapeFields}). Trino's own {@code ParquetTypeUtils.constructField} matches children by name, which is why it is not used
 * for nested columns.
 */
final class LakeParquetFields {
    private LakeParquetFields() {}

    /**
     * The field of {@code column} read as {@code readType}; empty if the file lacks the column. A row of the file none
     * of whose fields read it has is read with one of the file's own fields added last (see {@link LakeShapeFields}),
     * so the field's Trino type then differs from {@code readType}'s.
     *
     * @throws IllegalArgumentException if the file's column has another shape (say a list where a struct is read)
     */
    static Optional<Field> field(Type readType, ColumnIO column) {
        return column == null
                ? Optional.empty()
                : Optional.of(read(readType, column).field());
    }

    /** A field of the reader's tree and the Iceberg type it reads (with the fields added for shape). */
    private record Read(Field field, Type type) {}

    private static Read read(Type readType, ColumnIO column) {
        boolean required = column.getType().getRepetition() != org.apache.parquet.schema.Type.Repetition.OPTIONAL;
        if (readType.isPrimitiveType()) {
            PrimitiveColumnIO primitive = primitive(column);
            return new Read(
                    new PrimitiveField(
                            LakestreamTypes.toTrinoType(readType),
                            required,
                            primitive.getColumnDescriptor(),
                            primitive.getId()),
                    readType);
        }
        GroupColumnIO group = group(column);
        List<Optional<Field>> children = new ArrayList<>();
        Type typeRead = switch (readType.typeId()) {
            case STRUCT -> {
                List<Types.NestedField> fields = new ArrayList<>();
                for (Types.NestedField child : readType.asStructType().fields()) {
                    ColumnIO fileChild = lookupColumnById(group, child.fieldId());
                    if (fileChild == null) {
                        // Trino's reader fills a child it does not read with nulls of the child's type
                        children.add(Optional.empty());
                        fields.add(child);
                    } else {
                        Read childRead = read(child.type(), fileChild);
                        children.add(Optional.of(childRead.field()));
                        fields.add(Types.NestedField.from(child)
                                .ofType(childRead.type())
                                .build());
                    }
                }
                if (children.stream().noneMatch(Optional::isPresent)) {
                    // the reader takes a row's nulls (and a list's or map's entries) from the levels of a child it
                    // reads: with none of the fields read in the file, one of the file's own is read for them
                    ColumnIO shapeColumn = LakeShapeFields.shapeColumn(group);
                    Read shape = read(LakeShapeFields.icebergType(shapeColumn), shapeColumn);
                    children.add(Optional.of(shape.field()));
                    fields.add(Types.NestedField.optional(
                            shapeColumn.getType().getId().intValue(), LakeShapeFields.SHAPE_FIELD, shape.type()));
                }
                yield Types.StructType.of(fields);
            }
            case LIST -> {
                if (group.getChildrenCount() != 1) {
                    throw shape(readType, column);
                }
                Types.ListType list = readType.asListType();
                Read element = read(list.elementType(), getArrayElementColumn(group.getChild(0)));
                children.add(Optional.of(element.field()));
                yield list.isElementOptional()
                        ? Types.ListType.ofOptional(list.elementId(), element.type())
                        : Types.ListType.ofRequired(list.elementId(), element.type());
            }
            case MAP -> {
                GroupColumnIO keyValue = getMapKeyValueColumn(group);
                if (keyValue.getChildrenCount() != 2) {
                    throw shape(readType, column);
                }
                Types.MapType map = readType.asMapType();
                Read key = read(map.keyType(), keyValue.getChild(0));
                Read value = read(map.valueType(), keyValue.getChild(1));
                children.add(Optional.of(key.field()));
                children.add(Optional.of(value.field()));
                yield map.isValueOptional()
                        ? Types.MapType.ofOptional(map.keyId(), map.valueId(), key.type(), value.type())
                        : Types.MapType.ofRequired(map.keyId(), map.valueId(), key.type(), value.type());
            }
            default -> throw shape(readType, column);
        };
        return new Read(
                new GroupField(
                        LakestreamTypes.toTrinoType(typeRead),
                        column.getRepetitionLevel(),
                        column.getDefinitionLevel(),
                        required,
                        children),
                typeRead);
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
