package io.lakestream.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps the credentials of a catalog configuration out of the messages Lakestream makes: error messages
 * end up in query results, engine logs and query JSON. Credentials are the values of catalog properties
 * whose names say so ({@code jdbc.password}, {@code credential}, {@code token}, ...) and what a URL carries
 * itself: a {@code password=} (or token, secret, credential) parameter, or the password of its user info.
 */
final class CatalogSecrets {
    static final String MASK = "***";

    private static final Pattern SENSITIVE_NAME = Pattern.compile("password|secret|token|credential");
    private static final Pattern URL_PARAMETER =
            Pattern.compile("(?i)([?&;](?:[a-z0-9._-]*)(?:password|secret|token|credential)[a-z0-9._-]*=)[^&;\\s]*");
    private static final Pattern URL_USER_INFO = Pattern.compile("(//[^/:@\\s]+:)[^@/\\s]+@");

    private final List<String> values;

    private CatalogSecrets(List<String> values) {
        this.values = List.copyOf(values);
    }

    /** The credentials of {@code config}: values of its sensitive properties. */
    static CatalogSecrets of(CatalogConfig config) {
        List<String> values = new ArrayList<>();
        config.properties().forEach((name, value) -> {
            if (isSensitive(name) && !value.isEmpty()) {
                values.add(value);
            }
        });
        return new CatalogSecrets(values);
    }

    static boolean isSensitive(String propertyName) {
        return SENSITIVE_NAME.matcher(propertyName.toLowerCase(Locale.ROOT)).find();
    }

    /** {@code text} with every credential replaced by {@value #MASK}. */
    String redact(String text) {
        String result =
                URL_PARAMETER.matcher(text).replaceAll(match -> Matcher.quoteReplacement(match.group(1) + MASK));
        result = URL_USER_INFO
                .matcher(result)
                .replaceAll(match -> Matcher.quoteReplacement(match.group(1) + MASK + "@"));
        for (String value : values) {
            result = result.replace(value, MASK);
        }
        return result;
    }

    /** Whether {@code text} holds a credential that {@link #redact} would replace. */
    boolean appearIn(String text) {
        return !redact(text).equals(text);
    }
}
