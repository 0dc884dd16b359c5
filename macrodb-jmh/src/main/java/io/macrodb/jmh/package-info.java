/** JMH microbenchmarks of MacroDB's hot paths. */
package io.macrodb.jmh;
