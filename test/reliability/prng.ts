/**
 * Every randomized reliability run draws from the shared seeded PRNG, so it can be replayed from the
 * seed it prints.
 */
export { Random } from '../../bench/random.js';

/** The seed from QUIVER_SEED when set (to replay a run), else a fresh one. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['QUIVER_SEED'];
  if (raw !== undefined && raw !== '') {
    const seed = Number(raw);
    if (!Number.isInteger(seed)) throw new Error(`QUIVER_SEED must be an integer, not '${raw}'`);
    return seed >>> 0;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
