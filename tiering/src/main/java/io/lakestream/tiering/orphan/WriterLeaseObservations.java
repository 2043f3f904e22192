package io.lakestream.tiering.orphan;

import io.lakestream.log.WriterLease;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the sweeper of one table has seen of its writer leases, to tell live ones from expired ones by its
 * own clock only: a lease is live until its file has stayed unchanged for the lease's timeout since the
 * sweeper first saw that content. No clock of another host, and no file time stamped by the storage, is
 * compared with the sweeper's; skew between hosts plays no part (a sweeper that just started takes every
 * lease for live, and needs a second look a timeout later to expire one).
 */
final class WriterLeaseObservations {
    private final Map<String, Seen> seen = new HashMap<>();

    private record Seen(byte[] content, long sinceMillis) {}

    /**
     * Records the lease files listed now ({@code id -> content}) and returns the ids of those that have
     * expired; leases no longer listed are forgotten.
     */
    synchronized Set<String> expired(Map<String, byte[]> leases, long nowMillis) {
        seen.keySet().retainAll(leases.keySet());
        Set<String> expired = new HashSet<>();
        leases.forEach((id, content) -> {
            Seen previous = seen.get(id);
            if (previous == null || !Arrays.equals(previous.content(), content)) {
                seen.put(id, new Seen(content, nowMillis));
            } else if (nowMillis - previous.sinceMillis() >= timeoutMillis(content)) {
                expired.add(id);
            }
        });
        return expired;
    }

    private static long timeoutMillis(byte[] content) {
        return WriterLease.parse(content)
                .map(WriterLease::timeoutMillis)
                .orElse(WriterLease.DEFAULT_TIMEOUT.toMillis());
    }
}
