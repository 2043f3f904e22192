package io.lakestream.benchmarks;

/**
 * One timed write of all rows.
 *
 * @param seconds wall time of the whole write, commits included
 * @param commitSeconds the part of it spent in commit calls
 * @param dataBytes bytes of the data files written (log segments or Parquet files)
 */
record WriteResult(double seconds, double commitSeconds, long dataBytes) {}
