package io.lakestream.sqltests;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Spark's arrays and maps as JDK collections: {@code Row.get} returns a Scala {@code Seq} or {@code Map} from Spark's
 * class loader, read here by reflection through Scala's public interfaces (the concrete classes may not be public).
 */
final class ScalaValues {
    private ScalaValues() {}

    /** A Scala {@code Map} as a {@link Map}, any other Scala collection as a {@link List}; elements as they are. */
    static Object toJava(Object value) {
        try {
            ClassLoader loader = value.getClass().getClassLoader();
            Class<?> iterableOnce = Class.forName("scala.collection.IterableOnce", false, loader);
            Class<?> iterator = Class.forName("scala.collection.Iterator", false, loader);
            Object elements = iterableOnce.getMethod("iterator").invoke(value);
            List<Object> list = new ArrayList<>();
            while ((boolean) iterator.getMethod("hasNext").invoke(elements)) {
                list.add(iterator.getMethod("next").invoke(elements));
            }
            if (!Class.forName("scala.collection.Map", false, loader).isInstance(value)) {
                return list;
            }
            Class<?> tuple = Class.forName("scala.Tuple2", false, loader);
            Map<Object, Object> map = new LinkedHashMap<>();
            for (Object entry : list) {
                map.put(
                        tuple.getMethod("_1").invoke(entry),
                        tuple.getMethod("_2").invoke(entry));
            }
            return map;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot read Scala collection " + value, e);
        }
    }
}
