package io.macrodb.sql;

/** What a statement does, as far as routing is concerned. */
public enum StatementKind { READ, WRITE, DDL, TRANSACTION, SESSION, CALL, UNKNOWN }
