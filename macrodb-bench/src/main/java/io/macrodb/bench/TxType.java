package io.macrodb.bench;

/** A transaction type of a workload: its name and whether it only reads (and so may declare itself read-only). */
public record TxType(int index, String name, boolean readOnly) {}
