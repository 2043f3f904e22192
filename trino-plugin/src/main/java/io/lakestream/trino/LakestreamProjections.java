package io.lakestream.trino;

import static io.trino.plugin.base.projection.ApplyProjectionUtil.createProjectedColumnRepresentation;
import static io.trino.plugin.base.projection.ApplyProjectionUtil.extractSupportedProjectedColumns;
import static io.trino.plugin.base.projection.ApplyProjectionUtil.replaceWithNewVariables;

import io.trino.plugin.base.projection.ApplyProjectionUtil.ProjectedColumnRepresentation;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Variable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Dereference pushdown ({@code applyProjection}): each chain of field dereferences on a row column ({@code r.a.b})
 * becomes a column handle of its own ({@link LakestreamColumnHandle#dereference}), so the scan reads that field's
 * lake columns and log children only. Fields are resolved by position in the row type, which follows the Iceberg
 * struct's field order ({@link LakestreamNestedTypes}), to their Iceberg field ids. Anything else (a whole column,
 * system columns, the row id) is left to the engine as it was.
 */
final class LakestreamProjections {
    private LakestreamProjections() {}

    static Optional<ProjectionApplicationResult<ConnectorTableHandle>> apply(
            LakestreamTableHandle table,
            Schema schema,
            List<ConnectorExpression> projections,
            Map<String, ColumnHandle> assignments) {
        Set<ConnectorExpression> used = new LinkedHashSet<>();
        projections.forEach(projection -> used.addAll(extractSupportedProjectedColumns(projection)));
        if (used.stream().allMatch(Variable.class::isInstance)) {
            // no dereference to push: the engine prunes whole columns itself
            return Optional.empty();
        }
        Map<ConnectorExpression, Variable> variables = new HashMap<>();
        Map<String, Assignment> newAssignments = new LinkedHashMap<>();
        for (ConnectorExpression expression : used) {
            ProjectedColumnRepresentation projected = createProjectedColumnRepresentation(expression);
            Variable base = projected.getVariable();
            LakestreamColumnHandle column = (LakestreamColumnHandle) assignments.get(base.getName());
            Optional<LakestreamColumnHandle> field = projected.isVariable()
                    ? Optional.empty()
                    : dereference(schema, column, projected.getDereferenceIndices());
            if (field.isEmpty()) {
                // kept as it is: the column whole, the dereference (if any) evaluated by the engine
                variables.put(base, base);
                newAssignments.putIfAbsent(base.getName(), new Assignment(base.getName(), column, column.type()));
                continue;
            }
            String name = field.get().qualifiedName().replace('.', '#');
            Variable variable = new Variable(name, expression.getType());
            variables.put(expression, variable);
            newAssignments.putIfAbsent(
                    name, new Assignment(name, field.get(), field.get().type()));
        }
        List<ConnectorExpression> newProjections = projections.stream()
                .map(projection -> replaceWithNewVariables(projection, variables))
                .toList();
        return Optional.of(
                new ProjectionApplicationResult<>(table, newProjections, List.copyOf(newAssignments.values()), false));
    }

    /** The handle of field {@code indices} of a user row column, or empty when the column has no such fields. */
    private static Optional<LakestreamColumnHandle> dereference(
            Schema schema, LakestreamColumnHandle column, List<Integer> indices) {
        if (!column.isUserColumn()) {
            return Optional.empty();
        }
        int startId = column.isDereference()
                ? column.path().getLast()
                : column.fieldId().getAsInt();
        Types.NestedField field = schema.findField(startId);
        LakestreamColumnHandle result = column;
        for (int index : indices) {
            if (field == null || !field.type().isStructType()) {
                return Optional.empty();
            }
            field = field.type().asStructType().fields().get(index);
            result = result.dereference(field.fieldId(), field.name(), LakestreamTypes.toTrinoType(field.type()));
        }
        return Optional.of(result);
    }
}
