package io.macrodb.bench.buildinfo.recorded;

/** A package whose build recorded a commit (src/test/resources). */
public final class Anchor {}
