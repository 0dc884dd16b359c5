import io.macrodb.bench.*;
import io.macrodb.bench.tpcc.Tpcc;
import io.macrodb.replica.ReplicaStatus;
import java.sql.*;
import java.util.*;

public class Probe {
    public static void main(String[] a) throws Exception {
        for (String cap : new String[] {"decoding", "triggers"}) {
            Tpcc w = new Tpcc(1, 0.05);
            Mix m = w.mix("8-92");
            SystemConfig cfg = new SystemConfig(SystemConfig.Kind.MACRODB, 2, "leastActive", "strict",
                    "applyThreads=1&readWait=0" + (cap.equals("triggers") ? "&capture=triggers" : ""));
            try (Deployment d = Deployment.open(cfg, BenchEngine.POSTGRESQL, w, 20130826L, -1)) {
                var admin = d.macro().admin();
                String url = null;
                for (ReplicaStatus r : admin.replicaStatus()) if (r.index() == 1) url = r.url();
                System.out.println(cap + " secondary " + url + " capture " + admin.captureStatus().split(" ")[0]);
                PointRunner.run(d, w, m, 2, -1, new PointRunner.Settings(0, 2000, true, 1));
                admin.awaitCaughtUp(60000);
                String plain = url.startsWith("jdbc:") ? url : "jdbc:" + url;
                try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
                    s.execute("SELECT pg_stat_reset()");
                }
                Thread.sleep(11_000); // PostgreSQL 15 backends flush their statistics within 10 s of going idle
                admin.pauseApplying(1, true);
                long v0 = admin.replicaStatus().get(1).version();
                PointRunner.run(d, w, m, 2, 0, new PointRunner.Settings(0, 3000, true, 2));
                long v1 = admin.replicaStatus().get(1).version();
                admin.pauseApplying(1, false);
                admin.awaitCaughtUp(60000);
                long v2 = admin.replicaStatus().get(1).version();
                Thread.sleep(11_000); // PostgreSQL 15 backends flush their statistics within 10 s of going idle
                System.out.println("  records applied " + (v2 - v1) + " (moved while paused: " + (v1 - v0) + ")");
                try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()")) {
                        rs.next();
                        System.out.printf("  db: commits %d rollbacks %d returned %d fetched %d ins %d upd %d del %d%n", rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7));
                    }
                    try (ResultSet rs = s.executeQuery("SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del + seq_scan + coalesce(idx_scan,0) > 0 ORDER BY relname")) {
                        while (rs.next()) System.out.printf("  %-12s seq %d/%d idx %d/%d ins %d upd %d hot %d del %d%n", rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9));
                    }
                }
            }
        }
        BenchEngine.POSTGRESQL.release();
    }
}
