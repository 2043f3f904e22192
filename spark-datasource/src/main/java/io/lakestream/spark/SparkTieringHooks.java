package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.lakestream.common.LakestreamException;
import io.lakestream.tiering.TieringHooks;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSession;

/**
 * Lets a test (or a diagnostic) observe the Spark tiering job's tasks on the executors: the Spark
 * configuration {@code spark.lakestream.tiering.task-hook=<class>#<method>} names a public static method
 * taking one {@code String}, called with {@code <step>:<bucket>} at every {@link io.lakestream.tiering.TieringStep}
 * a task reaches (for example to hold a task after it wrote its files, and kill its executor). Only JDK
 * types cross, so the hook's class needs nothing of the runtime jar's relocated classes.
 */
final class SparkTieringHooks {
    static final String TASK_HOOK = "spark.lakestream.tiering.task-hook";
    /** The same on the driver, at the round's steps there ({@code COMMITTING}, {@code COMMITTED}). */
    static final String DRIVER_HOOK = "spark.lakestream.tiering.driver-hook";

    private SparkTieringHooks() {}

    static TieringHooks fromExecutorConf() {
        SparkEnv env = SparkEnv.get();
        return hooks(TASK_HOOK, env == null ? "" : env.conf().get(TASK_HOOK, ""));
    }

    /** The driver's hooks, from the session's {@value #DRIVER_HOOK} (e.g. to kill the driver inside its commit). */
    static TieringHooks fromDriverConf(SparkSession spark) {
        return hooks(DRIVER_HOOK, spark.sparkContext().getConf().get(DRIVER_HOOK, ""));
    }

    private static TieringHooks hooks(String key, String hook) {
        if (hook.isBlank()) {
            return TieringHooks.NONE;
        }
        Method method = resolve(key, hook);
        return (table, step, bucket) -> {
            try {
                method.invoke(null, step.name() + ":" + bucket);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException("tiering hook " + hook + " failed", e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("tiering hook " + hook + " is not accessible", e);
            }
        };
    }

    private static Method resolve(String key, String hook) {
        int separator = hook.indexOf('#');
        try {
            if (separator < 0) {
                throw new NoSuchMethodException(hook);
            }
            Class<?> type = Class.forName(
                    hook.substring(0, separator), true, Thread.currentThread().getContextClassLoader());
            return type.getMethod(hook.substring(separator + 1), String.class);
        } catch (ReflectiveOperationException e) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "%s=%s does not name a public static method taking one String (<class>#<method>)"
                            .formatted(key, hook),
                    e);
        }
    }
}
