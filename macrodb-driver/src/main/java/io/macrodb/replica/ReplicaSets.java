package io.macrodb.replica;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The replica sets open in this JVM, one per primary URL, shared by every connection to that URL and
 * shut down when the last one closes (the way an in-memory engine database lives while connected).
 */
public final class ReplicaSets {
    private static final Map<String, ReplicaSet> OPEN = new HashMap<>();

    private ReplicaSets() {}

    /** The set for {@code config.url()}, opened if needed, with one more reference taken. */
    public static ReplicaSet acquire(ReplicaSetConfig config) throws SQLException {
        String key = config.url().jdbcUrl();
        synchronized (OPEN) {
            ReplicaSet rs = OPEN.get(key);
            if (rs == null) {
                rs = ReplicaSet.open(config);
                OPEN.put(key, rs);
            } else {
                rs.checkCompatible(config);
            }
            rs.retain();
            return rs;
        }
    }

    /** Drops a reference; the last one shuts the set down. */
    public static void release(ReplicaSet rs) {
        synchronized (OPEN) {
            if (rs.releaseRef()) {
                OPEN.remove(rs.config().url().jdbcUrl(), rs);
                rs.shutdown();
                rs.closeExtensions();
            }
        }
    }
}
