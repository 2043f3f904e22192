package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The smoke run of the kernel micro-benchmarks ({@code ./lakestream bench kernels}, src/bench/java): every
 * benchmark was generated and runs, in this JVM, one short iteration on small inputs. It says nothing about
 * speed.
 */
class TestKernelBenchmarks {
    private static final List<Class<?>> KERNELS = List.of(
            TailIndexBuildKernels.class, LongRadixSortKernels.class, KeyIndexKernels.class, SelectionKernels.class);

    @Test
    void everyKernelBenchmarkRuns() throws RunnerException {
        OptionsBuilder builder = new OptionsBuilder();
        KERNELS.forEach(kernel -> builder.include("^" + kernel.getName() + "\\."));
        Options options = builder.forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(20))
                .param("tail", "small")
                .param("size", "2000")
                .param("keys", "1000")
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        long benchmarkMethods = KERNELS.stream()
                .flatMap(kernel -> java.util.Arrays.stream(kernel.getDeclaredMethods()))
                .filter(method -> method.isAnnotationPresent(org.openjdk.jmh.annotations.Benchmark.class))
                .count();
        assertThat(results).hasSize((int) benchmarkMethods);
        for (RunResult result : results) {
            assertThat(result.getPrimaryResult().getScore())
                    .as("score of %s", result.getParams().getBenchmark())
                    .isPositive();
        }
    }
}
