package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.And;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Which Spark predicates become Iceberg expressions, and which stay with Spark. */
class TestLakestreamFilters {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(4, "day", Types.DateType.get()),
            Types.NestedField.optional(5, "amount", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(6, "code", Types.UUIDType.get()),
            Types.NestedField.optional(
                    7,
                    "r",
                    Types.StructType.of(
                            Types.NestedField.optional(8, "a", Types.LongType.get()),
                            Types.NestedField.optional(
                                    9,
                                    "c",
                                    Types.StructType.of(Types.NestedField.optional(10, "e", Types.StringType.get()))),
                            Types.NestedField.optional(11, "d", Types.DoubleType.get()))),
            Types.NestedField.optional(
                    12,
                    "items",
                    Types.ListType.ofOptional(
                            13, Types.StructType.of(Types.NestedField.optional(14, "x", Types.LongType.get())))));

    /**
     * A predicate on a field of a struct column (Spark's reference {@code r.a}) is never pushed as exact (Spark keeps
     * it), but becomes a pruning expression on the field's full name, through structs only.
     */
    @Test
    void structFieldsOnlyPrune() {
        Predicate onField = predicate("=", field("r", "a"), literal(5L, DataTypes.LongType));
        assertNotTranslated(onField);
        assertThat(LakestreamFilters.translateForPruning(onField, SCHEMA).map(Object::toString))
                .hasValue("ref(name=\"r.a\") == 5");
        assertThat(LakestreamFilters.translateForPruning(
                                new Not(predicate(
                                        "=",
                                        field("R", "C", "e"),
                                        literal(UTF8String.fromString("x"), DataTypes.StringType))),
                                SCHEMA)
                        .map(Object::toString))
                .hasValue("not(ref(name=\"r.c.e\") == \"x\")");
        // a flat column translates the same either way
        assertThat(LakestreamFilters.translateForPruning(
                                predicate("=", Expressions.column("id"), literal(5L, DataTypes.LongType)), SCHEMA)
                        .map(Object::toString))
                .hasValue("ref(name=\"id\") == 5");
        // not through a list, not a floating point field, not a struct itself, not an unknown field
        for (Predicate predicate : new Predicate[] {
            predicate("=", field("items", "element", "x"), literal(5L, DataTypes.LongType)),
            predicate("=", field("r", "d"), literal(1.0d, DataTypes.DoubleType)),
            predicate("IS_NULL", field("r", "c")),
            predicate("=", field("r", "nope"), literal(5L, DataTypes.LongType))
        }) {
            assertThat(LakestreamFilters.translateForPruning(predicate, SCHEMA))
                    .as("%s", predicate)
                    .isEmpty();
        }
    }

    private static NamedReference field(String... names) {
        return () -> names;
    }

    @Test
    void comparisonsAndBooleanLogicAreTranslated() {
        assertTranslated(
                predicate("=", Expressions.column("id"), literal(5L, DataTypes.LongType)), "ref(name=\"id\") == 5");
        assertTranslated(
                predicate(">", literal(5L, DataTypes.LongType), Expressions.column("id")), "ref(name=\"id\") < 5");
        assertTranslated(
                new Not(predicate(
                        "=", Expressions.column("name"), literal(UTF8String.fromString("a"), DataTypes.StringType))),
                "not(ref(name=\"name\") == \"a\")");
        assertTranslated(
                new And(
                        predicate("IS_NULL", Expressions.column("name")),
                        predicate("<=", Expressions.column("day"), literal(19782, DataTypes.DateType))),
                "(is_null(ref(name=\"name\")) and ref(name=\"day\") <= 19782)");
        assertTranslated(
                predicate(
                        "STARTS_WITH",
                        Expressions.column("name"),
                        literal(UTF8String.fromString("ab"), DataTypes.StringType)),
                "ref(name=\"name\") startsWith \"\"ab\"\"");
    }

    @Test
    void nullSafeEqualityStaysRightUnderNot() {
        assertTranslated(
                predicate("<=>", Expressions.column("id"), literal(null, DataTypes.LongType)),
                "is_null(ref(name=\"id\"))");
        assertTranslated(
                predicate("<=>", Expressions.column("id"), literal(3L, DataTypes.LongType)),
                "(not_null(ref(name=\"id\")) and ref(name=\"id\") == 3)");
    }

    @Test
    void decimalLiteralsAreRescaledOnlyWhenExact() {
        assertTranslated(
                predicate(
                        "=",
                        Expressions.column("amount"),
                        literal(org.apache.spark.sql.types.Decimal.apply("1.50"), DataTypes.createDecimalType(10, 2))),
                "ref(name=\"amount\") == 1.50");
        assertNotTranslated(predicate(
                "=",
                Expressions.column("amount"),
                literal(org.apache.spark.sql.types.Decimal.apply("1.505"), DataTypes.createDecimalType(10, 3))));
    }

    @Test
    void whatSparkMustEvaluateItselfIsNotTranslated() {
        // floating point: NaN and -0.0 compare differently
        assertNotTranslated(predicate("=", Expressions.column("ratio"), literal(1.0d, DataTypes.DoubleType)));
        // uuid is a string to Spark but not to Iceberg
        assertNotTranslated(
                predicate("=", Expressions.column("code"), literal(UTF8String.fromString("x"), DataTypes.StringType)));
        // comparison with NULL, and IN with a NULL (unknown, not false, under NOT)
        assertNotTranslated(predicate("=", Expressions.column("id"), literal(null, DataTypes.LongType)));
        assertNotTranslated(predicate(
                "IN", Expressions.column("id"), literal(1L, DataTypes.LongType), literal(null, DataTypes.LongType)));
        // a literal of another type means Spark compares through a cast
        assertNotTranslated(predicate("=", Expressions.column("id"), literal(1, DataTypes.IntegerType)));
        // a function of a column
        assertNotTranslated(predicate(
                ">",
                new GeneralScalarExpression("+", new org.apache.spark.sql.connector.expressions.Expression[] {
                    Expressions.column("id"), literal(1L, DataTypes.LongType)
                }),
                literal(3L, DataTypes.LongType)));
        // an unknown column, and half of an AND that cannot be translated
        assertNotTranslated(predicate("=", Expressions.column("nope"), literal(1L, DataTypes.LongType)));
        assertNotTranslated(new And(
                predicate("=", Expressions.column("id"), literal(1L, DataTypes.LongType)),
                predicate("=", Expressions.column("ratio"), literal(1.0d, DataTypes.DoubleType))));
    }

    private static Predicate predicate(String name, org.apache.spark.sql.connector.expressions.Expression... children) {
        return new Predicate(name, children);
    }

    private static <T> LiteralValue<T> literal(T value, DataType type) {
        return new LiteralValue<>(value, type);
    }

    private static void assertTranslated(Predicate predicate, String expected) {
        Optional<Expression> translated = LakestreamFilters.translate(predicate, SCHEMA);
        assertThat(translated).as("%s", predicate).isPresent();
        assertThat(translated.get().toString()).isEqualTo(expected);
    }

    private static void assertNotTranslated(Predicate predicate) {
        assertThat(LakestreamFilters.translate(predicate, SCHEMA))
                .as("%s", predicate)
                .isEmpty();
    }
}
