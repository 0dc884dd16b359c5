package io.macrodb.replica;

import io.macrodb.durable.DurabilityConfig;
import io.macrodb.durable.LogReader;
import io.macrodb.durable.RecordCodec;
import io.macrodb.durable.SnapshotStore;
import io.macrodb.engine.Engine;
import io.macrodb.log.Change;
import io.macrodb.log.Propagation;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.sql.SqlState;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.logging.Logger;

/**
 * Start-up from a durable log directory: the newest snapshot is loaded into the (empty, in-memory)
 * primary, then every logged record after it is applied in version order. The secondaries are
 * built from the recovered primary afterwards, as on any start.
 */
final class Recovery {
    private static final Logger LOG = Logger.getLogger(Recovery.class.getName());
    private static final int COMMIT_EVERY = 1_000;

    /** What recovery did, for the inspection API and the log. */
    record Report(long snapshotVersion, long replayed, long version, String cut) {
        @Override public String toString() {
            return "recovered v" + version + " (snapshot v" + snapshotVersion + " + " + replayed + " logged records"
                    + (cut == null ? "" : "; " + cut) + ")";
        }
    }

    private Recovery() {}

    /** A logged record that the engine refused to apply during recovery. */
    private static final class RecordDoesNotApply extends IOException {
        private static final long serialVersionUID = 1L;
        final long version;

        RecordDoesNotApply(long version, SQLException cause) {
            super("replaying v" + version + " failed: " + cause.getMessage(), cause);
            this.version = version;
        }
    }

    /**
     * Sequences and identity columns of a database rebuilt from images and snapshots stand where
     * the snapshotted replica left them, not where the primary was: move them past every value the
     * old primary may have handed out.
     */
    static void restartGenerators(Engine engine, Connection c, java.util.Map<String, Long> positions) throws SQLException {
        java.util.Map<String, Long> current = engine.sequencePositions(c);
        for (java.util.Map.Entry<String, Long> e : positions.entrySet()) {
            Long now = current.get(e.getKey());
            if (now != null && now < e.getValue()) engine.restartSequence(c, e.getKey(), e.getValue());
        }
        engine.alignIdentities(c, positions);
        c.commit();
    }

    /** Recovers into {@code primary}; the caller's thread is in the APPLYING capture context. */
    static Report run(DurabilityConfig cfg, Engine engine, Propagation propagation, Connection primary) throws SQLException {
        SnapshotStore snapshots = new SnapshotStore(cfg.directory());
        try {
            if (snapshots.isEmpty()) return new Report(0, 0, 0, null);
            OptionalLong snap = snapshots.newest();
            long base = snap.orElse(0);
            boolean auto = primary.getAutoCommit();
            primary.setAutoCommit(false);
            java.util.Map<String, Long> positions = new java.util.HashMap<>();
            if (snap.isPresent()) {
                String damage = snapshots.damage(base);
                if (damage != null) {
                    throw new SQLException("MacroDB: the snapshot " + snapshots.file(base) + " is damaged: " + damage + ". Nothing on"
                            + " disk was changed: restore " + cfg.directory() + " from a backup, or move it aside to start an empty"
                            + " database", SqlState.DATA_CORRUPTED.getState());
                }
                try {
                    engine.importScript(primary, snapshots.file(base));
                } catch (SQLException e) {
                    throw new SQLException("MacroDB: the snapshot " + snapshots.file(base) + " cannot be loaded (" + e.getMessage()
                            + "); it is damaged or was not written by MacroDB. Nothing on disk was changed: restore " + cfg.directory()
                            + " from a backup, or move it aside to start an empty database", SqlState.DATA_CORRUPTED.getState(), e);
                }
                primary.commit();
                positions.putAll(snapshots.positions(base));
            }
            // Row images arrive table by table: foreign keys are checked again once everything is in.
            if (propagation == Propagation.ROW) engine.setReferentialIntegrity(primary, false);
            long[] done = {0};
            try (RowWriter writer = new RowWriter(primary, engine)) {
                LogReader.Result result = LogReader.replay(cfg.directory(), base, (version, payload) -> {
                    try {
                        List<Change> changes = RecordCodec.decode(payload);
                        for (Change c : changes) {
                            if (c instanceof RowChanges rc) writer.apply(rc, true);
                            else if (c instanceof StatementChange sc) writer.apply(sc);
                            else if (c instanceof io.macrodb.log.SequencePositions sp) {
                                sp.next().forEach((k, v) -> positions.merge(k, v, Math::max));
                            }
                        }
                        if (++done[0] % COMMIT_EVERY == 0) primary.commit();
                    } catch (SQLException e) {
                        throw new RecordDoesNotApply(version, e);
                    }
                });
                primary.commit();
                restartGenerators(engine, primary, positions);
                Report report = new Report(base, result.records(), result.lastVersion(), result.cut());
                if (result.cut() != null) LOG.warning("MacroDB: " + cfg.directory() + ": " + result.cut());
                LOG.info("MacroDB: " + cfg.directory() + ": " + report);
                return report;
            } finally {
                if (propagation == Propagation.ROW) engine.setReferentialIntegrity(primary, true);
                primary.commit();
                primary.setAutoCommit(auto);
            }
        } catch (LogReader.CorruptLogException e) {
            throw new SQLException("MacroDB: " + e.getMessage(), SqlState.DATA_CORRUPTED.getState(), e);
        } catch (RecordDoesNotApply e) {
            long base;
            try {
                base = snapshots.newest().orElse(0);
            } catch (IOException io) {
                base = -1;
            }
            throw new SQLException("MacroDB: recovering " + cfg.directory() + " from " + (base > 0 ? "the snapshot of v" + base + " ("
                    + snapshots.file(base).getFileName() + ")" : "an empty database") + " and the log: the logged record v" + e.version
                    + " does not apply to the state before it (" + e.getCause().getMessage() + "). The snapshot or the log is"
                    + " damaged, or another database wrote to this directory. Nothing on disk was changed: restore the directory"
                    + " from a backup, or move it aside to start an empty database", SqlState.DATA_CORRUPTED.getState(), e.getCause());
        } catch (IOException e) {
            throw new SQLException("MacroDB: recovering from " + cfg.directory() + " failed: " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        }
    }
}
