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
 * The flag belongs on the command line of the process (`npm start` puts it there). V8 flags are
 * process-wide, so that covers the main thread (inline evaluation, Fastify) and every worker; a
 * Worker's own `execArgv` cannot carry it (Node 20 refuses V8 options there with
 * ERR_WORKER_INVALID_EXEC_ARGV), and NODE_OPTIONS refuses it too. The bin's shebang does not carry
 * it either: that takes `#!/usr/bin/env -S node <flag>`, and BusyBox's env (Alpine, the node:alpine
 * images) has no -S, so the command would not start there at all.
 *
 * So a library, a bin or a test started without it sets it here, once, before its first query:
 * V8 reads the flag at each scavenge's pretenuring decision, so setting it after start-up takes
 * effect. A process started with either form of the flag keeps what its command line chose:
 * `node --allocation-site-pretenuring` is this fast path's switch.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = 'allocation-site-pretenuring';

let applied = false;

/** Whether a process's V8 options (process.execArgv) already decide pretenuring, either way. */
export function pretenuringChosenOnCommandLine(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => {
    // V8 takes underscores for dashes, and --no-x or --x=false for off.
    const name = arg.replace(/_/g, '-').split('=')[0];
    return name === `--${FLAG}` || name === `--no-${FLAG}`;
  });
}

/** Turns allocation-site pretenuring off for this process unless its command line chose; later calls do nothing. */
export function keepQueryGarbageYoung(): void {
  if (applied) return;
  applied = true;
  if (!pretenuringChosenOnCommandLine(process.execArgv)) setFlagsFromString(`--no-${FLAG}`);
}
