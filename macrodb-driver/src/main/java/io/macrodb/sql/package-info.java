/**
 * SQL text analysis, one analysis per text: the classifier (what a statement is and whether it is a
 * pure read, {@link io.macrodb.sql.Classification}), the rewriter that makes a write deterministic for
 * statement propagation, the lexer, the dialects, and the checks for non-deterministic schema.
 *
 * <p>The ground floor: uses nothing of MacroDB's (JSqlParser only). Everything else may use it.
 */
package io.macrodb.sql;
