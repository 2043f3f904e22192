package io.lakestream.benchmarks;

/**
 * One timed read of all rows.
 *
 * @param seconds wall time
 * @param rows rows read
 * @param checksum sum of id + qty + length of name over all rows; both sides must agree
 */
record ReadResult(double seconds, long rows, long checksum) {}
