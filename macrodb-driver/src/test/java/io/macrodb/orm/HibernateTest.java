package io.macrodb.orm;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.ReplicaRef;
import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.TestDb;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * An unchanged JPA application (Hibernate over HikariCP) on MacroDB: its read transactions never
 * call setReadOnly, yet run on secondaries; its transfers (read entities, change them, flush) move
 * to the primary; @Version optimistic locking keeps working; totals are always right.
 */
@Tag("slow") // left out of the fast test command (README); CI runs it
class HibernateTest {
    private static final int ACCOUNTS = 20;

    private static SessionFactory sessionFactory(HikariDataSource ds) {
        Configuration cfg = new Configuration();
        cfg.addAnnotatedClass(Account.class);
        cfg.getProperties().put("hibernate.connection.datasource", ds);
        cfg.setProperty("hibernate.hbm2ddl.auto", "create");
        cfg.setProperty("hibernate.show_sql", "false");
        return cfg.buildSessionFactory();
    }

    private static ReplicaRef where(EntityManager em) {
        AtomicReference<ReplicaRef> r = new AtomicReference<>();
        em.unwrap(Session.class).doWork(c -> r.set(c.unwrap(MacroConnection.class).currentReplica()));
        return r.get();
    }

    private static long total(EntityManager em) {
        return em.createQuery("select sum(a.balance) from Account a", Long.class).getSingleResult();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void anUnchangedJpaApplicationGetsItsReadsOnSecondariesAndStaysCorrect(String engine) throws Exception {
        String url = TestDb.url(engine, "replicas=3");
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("sa");
        hc.setPassword("");
        hc.setMaximumPoolSize(6);
        hc.setMinimumIdle(1);
        try (HikariDataSource ds = new HikariDataSource(hc); SessionFactory sf = sessionFactory(ds)) {
            try (EntityManager em = sf.createEntityManager()) {
                em.getTransaction().begin();
                for (int i = 0; i < ACCOUNTS; i++) em.persist(new Account(i, "owner" + i, 1000));
                em.getTransaction().commit();
            }
            try (Connection c = ds.getConnection()) {
                TestDb.macro(c).admin().awaitCaughtUp(5_000);
            }
            try (EntityManager em = sf.createEntityManager()) {
                em.getTransaction().begin();
                assertEquals(ACCOUNTS * 1000L, total(em));
                assertFalse(where(em).isPrimary(), "a JPA read transaction runs on a secondary");
                em.getTransaction().commit();
            }

            try (BankWorkload bank = BankWorkload.of("hibernate " + engine, url)) {
                bank.accounts(ACCOUNTS, 1000);
                bank.writers(2, writer -> rnd -> {
                    int[] pair = bank.pickPair(rnd);
                    try (EntityManager em = sf.createEntityManager()) {
                        em.getTransaction().begin();
                        try {
                            Account a = em.find(Account.class, pair[0]);
                            Account b = em.find(Account.class, pair[1]);
                            a.setBalance(a.getBalance() - 7);
                            b.setBalance(b.getBalance() + 7);
                            em.getTransaction().commit();
                            return true;
                        } catch (PersistenceException e) {
                            if (em.getTransaction().isActive()) em.getTransaction().rollback();
                            if (!retryable(e)) throw e;
                            return false; // an optimistic failure: retry
                        }
                    }
                });
                bank.readers(2, reader -> () -> {
                    try (EntityManager em = sf.createEntityManager()) {
                        em.getTransaction().begin();
                        long t = total(em);
                        boolean secondary = !where(em).isPrimary();
                        em.getTransaction().commit();
                        return new BankWorkload.Read(t, secondary);
                    }
                });
                // asserts: no wrong total, 100 transfers committed, 300 JPA reads ran on secondaries
                bank.transfers(100).reads(300).readsOnSecondaries(300);
                BankWorkload.Result result = bank.run();
                try (Connection c = ds.getConnection()) {
                    System.out.println("hibernate " + engine + ": " + result.transfers() + " transfers, " + result.retriedTransfers()
                            + " retried, " + result.readsOnSecondaries() + " reads on secondaries; " + TestDb.macro(c).routingStats());
                    TestDb.assertConverged(c);
                }
            }
            try (EntityManager em = sf.createEntityManager()) {
                assertEquals(ACCOUNTS * 1000L, total(em));
            }
        }
    }

    /** A version conflict, or MacroDB's 40001 (a read changed before the first write), means: retry. */
    private static boolean retryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OptimisticLockException || t instanceof org.hibernate.StaleStateException) return true;
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("40")) return true;
        }
        return false;
    }
}
