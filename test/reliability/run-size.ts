/**
 * How big a reliability run is: CI runs a sample that keeps `npm test` fast; QUIVER_FULL=1 runs the
 * full size; a per-test variable (say QUIVER_FUZZ_REQUESTS) overrides either.
 */
export const FULL_RUN = process.env['QUIVER_FULL'] === '1';

export function runSize(variable: string, ci: number, full: number): number {
  const raw = process.env[variable];
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${variable} must be a positive integer, not '${raw}'`);
    return n;
  }
  return FULL_RUN ? full : ci;
}

/** A test's time limit in ms, scaled for a full run. */
export function timeLimit(ciMs: number, fullMs: number): number {
  return FULL_RUN ? fullMs : ciMs;
}
