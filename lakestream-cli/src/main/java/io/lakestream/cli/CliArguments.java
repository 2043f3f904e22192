package io.lakestream.cli;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.CatalogOptions;
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
    private final Map<String, List<String>> options;
    private final Set<String> flags;

    private CliArguments(Map<String, List<String>> options, Set<String> flags) {
        this.options = options;
        this.flags = flags;
    }

    static CliArguments parse(List<String> args, Set<String> valueOptions, Set<String> flagOptions) {
        Map<String, List<String>> options = new HashMap<>();
        List<String> flags = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (flagOptions.contains(arg)) {
                flags.add(arg);
            } else if (valueOptions.contains(arg)) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("option %s needs a value".formatted(arg));
                }
                options.computeIfAbsent(arg, name -> new ArrayList<>()).add(args.get(++i));
            } else {
                throw new UsageException("unknown argument '%s'".formatted(arg));
            }
        }
        return new CliArguments(options, Set.copyOf(flags));
    }

    /** The option's value (the last one, if it was given more than once). */
    Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name)).map(List::getLast);
    }

    /** Every value of a repeatable option, in order. */
    List<String> options(String name) {
        return List.copyOf(options.getOrDefault(name, List.of()));
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    /** The catalog options ({@link CatalogOptions#NAMES}) among the arguments. */
    CatalogOptions catalogOptions() {
        try {
            return CatalogOptions.of(options);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
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
