/**
 * A snapshot's content version, read once per reader for planning. The planner's shared caches
 * (statistics, pattern counts, IRI IDs) each check it, and reading it is a store read (a few µs,
 * as much as some of the look-ups it guards); planning is one synchronous step on one snapshot, so
 * one read serves them all. Evaluation (numeric-objects.ts) asks the reader itself.
 */
import type { StoreReader } from '../../store/quad-store.js';

const versions = new WeakMap<StoreReader, number | undefined>();

export function contentVersionOf(reader: StoreReader): number | undefined {
  if (versions.has(reader)) return versions.get(reader);
  const version = reader.contentVersion?.();
  versions.set(reader, version);
  return version;
}
