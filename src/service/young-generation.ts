/**
 * Keeps a query's short-lived objects in the young generation, where they die cheaply.
 *
 * V8 "pretenures" an allocation site (allocates its objects straight in old space) once most of the
 * objects it made survived a scavenge. Query evaluation trips this: the objects of a query that is
 * running when a scavenge comes survive it, their sites get pretenured, and from then on every
 * query's objects from those sites are born old. Each one, dead or not, keeps whatever young
 * objects it points to (scan cursors, key buffers, rows) alive through every scavenge until the next
 * full collection, so those are promoted too, and the survival rate that triggered pretenuring stays
 * high. On BSBM 1k, in-process (bench/RESULTS-LOG.md, issue 5): 18% of the young generation survived
 * each scavenge (1.1 GB promoted over 990 mixes, median pause 5–9 ms); without pretenuring 1.8%
 * (57 MB, 1.3 ms), and CPU per mix fell by a quarter.
 *
 * The flag is process-wide: it covers the main thread (inline evaluation, Fastify) and every worker.
 * V8 reads it at each scavenge's pretenuring decision, so setting it after start-up takes effect.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Turns allocation-site pretenuring off for this process; later calls do nothing. */
export function keepQueryGarbageYoung(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
