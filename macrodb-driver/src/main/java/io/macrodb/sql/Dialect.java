package io.macrodb.sql;

/** Which engine's dialect is being parsed. */
public enum Dialect { H2, HSQLDB, SQLITE, DERBY, POSTGRESQL }
