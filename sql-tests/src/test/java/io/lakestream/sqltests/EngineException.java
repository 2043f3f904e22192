package io.lakestream.sqltests;

import java.util.ArrayList;
import java.util.List;

/**
 * A statement failed in one engine; the message names the engine and the statement and holds every
 * message of the engine's cause chain (engines wrap the error a user acts on).
 */
final class EngineException extends RuntimeException {
    EngineException(String engine, String statement, Throwable cause) {
        super(engine + " failed: " + messages(cause) + "\n  statement: " + statement, cause);
    }

    private static String messages(Throwable e) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = e; t != null && messages.size() < 20; t = t.getCause() == t ? null : t.getCause()) {
            messages.add(t.toString());
        }
        return String.join("\n  caused by: ", messages);
    }
}
