package io.macrodb.bench.buildinfo.unfiltered;

/** A package whose build-commit.properties was never filtered. */
public final class Anchor {}
