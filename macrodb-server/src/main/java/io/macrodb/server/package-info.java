/**
 * MacroDB as a server: the PostgreSQL frontend/backend protocol 3.0 in front of a MacroDB replica set,
 * so that psql, pgjdbc and other PostgreSQL clients reach it by host and port.
 *
 * <p>The parts, each with one job:
 * <ul>
 *   <li>{@link io.macrodb.server.FrontendMessage}, {@link io.macrodb.server.MessageDecoder} and
 *       {@link io.macrodb.server.BackendMessages}: the message codec, bytes to messages and back, no I/O;</li>
 *   <li>{@link io.macrodb.server.PgFrameDecoder}: cuts the byte stream into frames, enforces the size limit,
 *       answers SSLRequest and GSSENCRequest on the event loop;</li>
 *   <li>{@link io.macrodb.server.PgSession}: one per client connection, the protocol state machine; owns one
 *       MacroDB JDBC connection and runs on a worker thread, never on the event loop (JDBC blocks);</li>
 *   <li>{@link io.macrodb.server.PgTypes}: JDBC types to PostgreSQL type OIDs, text and binary formats;</li>
 *   <li>{@link io.macrodb.server.ColumnNames}: the names PostgreSQL gives a query's result columns, from its text;</li>
 *   <li>{@link io.macrodb.server.Scram} and {@link io.macrodb.server.UserStore}: SCRAM-SHA-256 authentication
 *       against stored verifiers (never passwords), MD5 and clear text for the users configured for them;</li>
 *   <li>{@link io.macrodb.server.PgCatalog}: psql's and pgjdbc's {@code pg_catalog} queries answered from the
 *       engine's JDBC metadata;</li>
 *   <li>{@link io.macrodb.server.PgServer}: the Netty bootstrap, connection limit, cancel keys, shutdown.</li>
 * </ul>
 */
package io.macrodb.server;
