package io.lakestream.plan;

import io.lakestream.log.PartitionLog;
import io.lakestream.table.Partitioning;
import io.lakestream.table.TableDefinition;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Which partitions of a partitioned table's log a filter can match, before any segment is opened: the filter is
 * projected through the user's partition fields ({@link Projections#inclusive}, as Iceberg prunes lake files) and
 * evaluated on each partition's values, read back from its partition path (docs/format.md "The log of a partitioned
 * table"). Inclusive: a partition is kept unless no row of it can match.
 */
public final class LogPartitionPruner {
    private static final LocalDate EPOCH = LocalDate.of(1970, 1, 1);

    private final PartitionSpec spec;
    private final Evaluator evaluator;
    private final boolean everything;

    public LogPartitionPruner(TableDefinition definition, Expression filter) {
        this.spec = Partitioning.userSpec(definition);
        Expression projected = Projections.inclusive(spec, false).project(filter);
        this.everything = projected.op() == Expression.Operation.TRUE || filter.equals(Expressions.alwaysTrue());
        this.evaluator = new Evaluator(spec.partitionType(), projected, false);
    }

    public boolean mayMatch(PartitionLog partition) {
        if (everything) {
            return true;
        }
        try {
            return evaluator.eval(values(partition.path()));
        } catch (RuntimeException e) {
            // a path this code cannot read back is kept: pruning may only ever skip what cannot match
            return true;
        }
    }

    /**
     * The partition's values (Iceberg's internal representation of each field's result type) from its path, as a
     * struct of {@link Partitioning#userSpec}'s partition type; also used to decide whether a delete selects whole
     * partitions (tiering's {@code PartitionDelete}).
     */
    public StructLike values(String path) {
        List<PartitionField> fields = spec.fields();
        String[] parts = path.split("/", -1);
        if (parts.length != fields.size()) {
            throw new IllegalArgumentException(
                    "partition path %s does not have %s fields".formatted(path, fields.size()));
        }
        Types.StructType type = spec.partitionType();
        GenericRecord values = GenericRecord.create(type);
        for (int i = 0; i < fields.size(); i++) {
            String part = parts[i];
            int equals = part.indexOf('=');
            String human = URLDecoder.decode(part.substring(equals + 1), StandardCharsets.UTF_8);
            values.set(i, parse(fields.get(i), type.fields().get(i).type(), human));
        }
        return values;
    }

    /** A transform's human string back to its value: the inverse of {@code Transform.toHumanString}. */
    private static Object parse(PartitionField field, Type type, String human) {
        if (human.equals("null")) {
            return null;
        }
        String transform = field.transform().toString();
        return switch (transform) {
            case "year" -> (int) ChronoUnit.YEARS.between(EPOCH, LocalDate.of(Integer.parseInt(human), 1, 1));
            case "month" -> (int) ChronoUnit.MONTHS.between(EPOCH, LocalDate.parse(human + "-01"));
            case "day" -> (int) LocalDate.parse(human).toEpochDay();
            case "hour" -> {
                int lastDash = human.lastIndexOf('-');
                LocalDateTime hour = LocalDate.parse(human.substring(0, lastDash))
                        .atTime(Integer.parseInt(human.substring(lastDash + 1)), 0);
                yield (int) (hour.toEpochSecond(ZoneOffset.UTC) / 3600);
            }
            default -> Conversions.fromPartitionString(type, human);
        };
    }
}
