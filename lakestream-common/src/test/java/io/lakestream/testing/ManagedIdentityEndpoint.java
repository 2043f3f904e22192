package io.lakestream.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The token endpoint of an Azure managed identity as App Service and Azure Functions offer it to their
 * processes (protocol version 2019-08-01: {@code GET <IDENTITY_ENDPOINT>?resource=...&api-version=2019-08-01}
 * with the header {@code X-IDENTITY-HEADER: <IDENTITY_HEADER>}), on a loopback port: a process started with
 * {@link #environment()} gets its Azure AD tokens here through azure-identity's {@code ManagedIdentityCredential}
 * (part of {@code DefaultAzureCredential}), exactly as on App Service.
 *
 * <p>The tokens are JWTs for the audience asked for, issued by {@code https://sts.windows.net/<tenant>/}, valid
 * for an hour, and unsigned: Azurite's basic OAuth checks audience, issuer and lifetime, not the signature.
 */
public final class ManagedIdentityEndpoint implements AutoCloseable {
    private static final String API_VERSION = "2019-08-01";
    private static final String TENANT = "72f988bf-0000-0000-0000-000000000000";
    private static final Duration LIFETIME = Duration.ofHours(1);

    private final HttpServer server;
    private final String secret = UUID.randomUUID().toString();
    private final Clock clock;
    private final String audience;
    private final List<String> served = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();

    private ManagedIdentityEndpoint(Clock clock, String audience) throws IOException {
        this.clock = clock;
        this.audience = audience;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/msi/token", this::token);
        server.start();
    }

    /**
     * An endpoint whose tokens carry the audience a client asks for (the resource, e.g. {@code
     * https://storage.azure.com}).
     */
    public static ManagedIdentityEndpoint start(Clock clock) {
        return start(clock, null);
    }

    /** An endpoint whose tokens always carry {@code audience}, whatever was asked for (a misconfigured identity). */
    public static ManagedIdentityEndpoint start(Clock clock, String audience) {
        try {
            return new ManagedIdentityEndpoint(clock, audience);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The environment App Service gives a process with a managed identity. */
    public Map<String, String> environment() {
        return Map.of(
                "IDENTITY_ENDPOINT",
                "http://127.0.0.1:%s/msi/token".formatted(server.getAddress().getPort()),
                "IDENTITY_HEADER",
                secret);
    }

    /** The resources of the tokens served so far, one entry per token. */
    public List<String> served() {
        return List.copyOf(served);
    }

    /** The requests refused so far (wrong header, version or resource), each described. */
    public List<String> refused() {
        return List.copyOf(refused);
    }

    private void token(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            String resource = query.get("resource");
            if (!secret.equals(exchange.getRequestHeaders().getFirst("X-IDENTITY-HEADER"))
                    || !API_VERSION.equals(query.get("api-version"))
                    || resource == null) {
                refused.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                        + exchange.getRequestHeaders().keySet());
                respond(exchange, 400, "{\"error\":\"invalid_request\"}");
                return;
            }
            Instant now = clock.instant();
            long expires = now.plus(LIFETIME).getEpochSecond();
            String token = token(audience == null ? resource : audience, now);
            served.add(resource);
            respond(exchange, 200, """
                    {"access_token":"%s","expires_on":"%s","resource":"%s","token_type":"Bearer","client_id":"%s"}""".formatted(token, expires, resource, UUID.randomUUID()));
        }
    }

    /**
     * An unsigned JWT as Azure AD issues one for {@code audience} (e.g. {@code https://storage.azure.com}), valid
     * from {@code now} for an hour.
     */
    public static String token(String audience, Instant now) {
        long issued = now.getEpochSecond();
        String claims = """
                {"aud":"%s","iss":"https://sts.windows.net/%s/","iat":%s,"nbf":%s,"exp":%s,"oid":"%s","tid":"%s"}""".formatted(
                audience, TENANT, issued, issued, now.plus(LIFETIME).getEpochSecond(), UUID.randomUUID(), TENANT);
        return base64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + base64(claims) + ".";
    }

    private static String base64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(UTF_8));
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> parameters = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int equals = pair.indexOf('=');
                if (equals > 0) {
                    parameters.put(
                            URLDecoder.decode(pair.substring(0, equals), UTF_8),
                            URLDecoder.decode(pair.substring(equals + 1), UTF_8));
                }
            }
        }
        return parameters;
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
