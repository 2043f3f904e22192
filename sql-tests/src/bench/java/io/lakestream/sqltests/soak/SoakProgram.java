package io.lakestream.sqltests.soak;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The long soak: {@code ./lakestream bench soak [--minutes 30] [--seed N] [--no-disk-full] [--output DIR]}.
 * Without a seed it draws one and prints it; the same seed replays the same schedule. Exits with 1 when
 * the checker found a violation (the report says which), 2 on bad arguments.
 */
public final class SoakProgram {
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final String USAGE =
            "usage: lakestream bench soak [--minutes N] [--seconds N] [--seed N] [--no-disk-full] [--output DIR]";

    private SoakProgram() {}

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (IllegalArgumentException e) {
            OUT.println("error: " + e.getMessage());
            OUT.println(USAGE);
            status = 2;
        } catch (Throwable e) {
            OUT.println("soak failed:");
            e.printStackTrace(OUT);
            status = 1;
        }
        System.exit(status);
    }

    private static int run(String[] args) throws Exception {
        Duration duration = Duration.ofMinutes(30);
        long seed = ThreadLocalRandom.current().nextLong(1, 1_000_000_000L);
        boolean diskFull = true;
        Path output = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--minutes" -> duration = Duration.ofMinutes(Long.parseLong(value(args, ++i)));
                case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(value(args, ++i)));
                case "--seed" -> seed = Long.parseLong(value(args, ++i));
                case "--no-disk-full" -> diskFull = false;
                case "--output" -> output = Path.of(value(args, ++i));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (output == null) {
            output = Path.of("target", "soak", "seed-" + seed);
        }
        OUT.printf(
                "Lakestream soak: seed %d, %d s of faults; history, logs and report in %s%n",
                seed, duration.toSeconds(), output.toAbsolutePath());
        SoakReport report = new SoakRun(SoakOptions.longRun(seed, duration, output.toAbsolutePath())
                        .withDiskFull(diskFull))
                .run();
        OUT.print(report.text());
        return report.passed() ? 0 : 1;
    }

    private static String value(String[] args, int index) {
        if (index >= args.length) {
            throw new IllegalArgumentException(args[index - 1] + " needs a value");
        }
        return args[index];
    }
}
