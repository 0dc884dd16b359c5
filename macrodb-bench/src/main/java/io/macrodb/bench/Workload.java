package io.macrodb.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;

/**
 * A benchmark workload: a schema and its data, transaction types, and mixes of them. The runner
 * owns the transaction boundaries (auto-commit off, {@code setReadOnly}, commit, rollback); a
 * {@link Client} only runs a transaction's statements.
 */
public interface Workload {

    /** Whether the runner commits the transaction or rolls it back (TPC-C's 1% NewOrder rollbacks). */
    enum Outcome { COMMIT, ROLLBACK }

    String name();

    List<TxType> types();

    /** Mixes run when none are named. */
    List<String> defaultMixes();

    /**
     * A mix by name: a workload's own names, {@code R-U} read-only:update shares, or explicit
     * weights {@code Type=w,...}.
     *
     * @throws IllegalArgumentException naming the mixes this workload knows
     */
    Mix mix(String spec);

    /** Creates the schema and loads the data through a plain engine connection (auto-commit off on return is allowed). */
    void load(Connection c, BenchEngine engine, long seed) throws SQLException;

    /**
     * A client's own state (its home warehouse, its customer, its cart).
     *
     * @param engine  the engine the client's database runs on (its SQL dialect: {@link BenchEngine#firstRows})
     * @param index   the client's number among those driving the same database, 0-based
     * @param clients how many clients drive that database
     */
    Client client(BenchEngine engine, int index, int clients, long seed);

    /** One client thread's transactions; not shared between threads. */
    interface Client {
        /** Runs the statements of one transaction of type {@code t} on {@code c} (auto-commit off). */
        Outcome run(TxType t, Connection c, Random rnd) throws SQLException;
    }
}
