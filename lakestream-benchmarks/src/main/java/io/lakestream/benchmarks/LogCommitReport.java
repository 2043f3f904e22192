package io.lakestream.benchmarks;

import io.lakestream.benchmarks.LogCommitBenchmark.Round;
import io.lakestream.benchmarks.LogCommitBenchmark.Store;
import java.io.PrintStream;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** Prints the log commit benchmark's rounds: medians per store and writer count, S3 against local disk. */
final class LogCommitReport {
    private final LogCommitBenchmark.Options options;
    private final List<Round> rounds;
    private final PrintStream out;

    LogCommitReport(LogCommitBenchmark.Options options, List<Round> rounds, PrintStream out) {
        this.options = options;
        this.rounds = List.copyOf(rounds);
        this.out = out;
    }

    void print() {
        out.println();
        out.println("== Log commits per second: S3 (S3Mock) against the local file system ==");
        out.printf(
                "%d cores, Java %s; one primary-key table of %d buckets per round; each writer: its own catalog,"
                        + " %d commits of %d upserts; %d rounds per configuration, medians shown%n%n",
                Runtime.getRuntime().availableProcessors(),
                Runtime.version(),
                options.buckets(),
                options.commitsPerWriter(),
                options.rowsPerCommit(),
                options.rounds());
        out.printf(
                "%-8s %-11s %10s %9s %10s %9s %9s %12s %14s %12s %10s%n",
                "writers",
                "store",
                "commits/s",
                "vs local",
                "vs 1 wr.",
                "p50 ms",
                "p99 ms",
                "publish ms",
                "lost races/c.",
                "attempts/c.",
                "reads/c.");
        for (int writers : options.writers()) {
            for (Store store : Store.values()) {
                double perSecond = median(store, writers, Round::commitsPerSecond);
                double local = median(Store.LOCAL, writers, Round::commitsPerSecond);
                double single = options.writers().contains(1) ? median(store, 1, Round::commitsPerSecond) : Double.NaN;
                out.printf(
                        "%-8d %-11s %10.1f %8.2fx %9.2fx %9.1f %9.1f %12.2f %14.2f %12.2f %10.2f%n",
                        writers,
                        store.label(),
                        perSecond,
                        perSecond / local,
                        perSecond / single,
                        median(store, writers, Round::p50CommitMillis),
                        median(store, writers, Round::p99CommitMillis),
                        median(store, writers, Round::meanPublishMillis),
                        median(store, writers, round -> (double) round.lostRaces() / round.commits()),
                        median(store, writers, round -> (double) round.publishAttempts() / round.commits()),
                        median(store, writers, round -> (double) round.logFileReads() / round.commits()));
            }
        }
        out.println();
        out.println(
                "commits/s: acknowledged commits of all writers over the round's wall time. p50/p99: one commit call"
                        + " (segments flushed and closed, the commit published, retries included). publish ms: one conditional"
                        + " create (If-None-Match PutObject on S3, hard link of a synced file locally). lost races/c.: publish"
                        + " attempts lost to another writer per commit (each is a re-read and a retry). attempts/c. also counts"
                        + " the checkpoints (every 50 versions). reads/c.: log files read or probed per commit (commit files,"
                        + " checkpoints, hints, the identity record; on S3 one GET each). Every round checked: one version per acknowledged commit,"
                        + " versions 1..N, every row in the log.");
    }

    private double median(Store store, int writers, ToDoubleFunction<Round> value) {
        double[] values = rounds.stream()
                .filter(round -> round.store() == store && round.writers() == writers)
                .mapToDouble(value)
                .sorted()
                .toArray();
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
