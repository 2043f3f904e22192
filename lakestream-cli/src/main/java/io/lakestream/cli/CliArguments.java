package io.lakestream.cli;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Parsed command-line options: {@code --name value} options and {@code --flag} flags, checked
 * against what the command accepts. Bad input is an {@link UsageException}.
 */
final class CliArguments {
    private final Map<String, String> options;
    private final Set<String> flags;

    private CliArguments(Map<String, String> options, Set<String> flags) {
        this.options = options;
        this.flags = flags;
    }

    static CliArguments parse(List<String> args, Set<String> valueOptions, Set<String> flagOptions) {
        Map<String, String> options = new HashMap<>();
        List<String> flags = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (flagOptions.contains(arg)) {
                flags.add(arg);
            } else if (valueOptions.contains(arg)) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("option %s needs a value".formatted(arg));
                }
                options.put(arg, args.get(++i));
            } else {
                throw new UsageException("unknown argument '%s'".formatted(arg));
            }
        }
        return new CliArguments(options, Set.copyOf(flags));
    }

    Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name));
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    /** The warehouse: {@code --warehouse DIR}, default {@code ./lakestream-warehouse}. */
    Path warehouse() {
        return Path.of(option("--warehouse").orElse("lakestream-warehouse")).toAbsolutePath();
    }

    /** A duration like {@code 500ms}, {@code 5s}, {@code 2m}. */
    static Duration duration(String option, String value) {
        requireNonNull(value, "value is null");
        try {
            if (value.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
            }
            long amount = Long.parseLong(value.substring(0, value.length() - 1));
            return switch (value.charAt(value.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new NumberFormatException();
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new UsageException("%s takes a duration such as 500ms, 5s or 2m, not '%s'".formatted(option, value));
        }
    }

    /** A mistake in the command line: printed with the usage, exit code 2. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
