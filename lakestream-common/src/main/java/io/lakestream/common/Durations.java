package io.lakestream.common;

import java.time.Duration;
import java.util.Locale;

/** The duration syntax of Lakestream's settings: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 30d}. */
public final class Durations {
    private Durations() {}

    /** A number followed by {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}; {@link NumberFormatException} otherwise. */
    public static Duration parse(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.endsWith("ms")) {
            return Duration.ofMillis(
                    Long.parseLong(text.substring(0, text.length() - 2).trim()));
        }
        if (text.isEmpty()) {
            throw new NumberFormatException("not a duration: " + value);
        }
        long amount = Long.parseLong(text.substring(0, text.length() - 1).trim());
        return switch (text.charAt(text.length() - 1)) {
            case 's' -> Duration.ofSeconds(amount);
            case 'm' -> Duration.ofMinutes(amount);
            case 'h' -> Duration.ofHours(amount);
            case 'd' -> Duration.ofDays(amount);
            default -> throw new NumberFormatException("not a duration: " + value);
        };
    }
}
