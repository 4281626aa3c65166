/**
 * Runs the analytic workload (analytic-workload.ts) against one engine: every instance once to warm
 * up, then `repeats` rounds over all instances, one query at a time, each on the engine's own
 * protocol (Virtuoso on a new connection per request: its kept-alive connections stall 40 ms per
 * answer, engine.ts). The first measured answer of each instance is kept for the cross-check.
 */
import { Agent } from 'node:http';
import { parseRows, type Row } from './analytic-check.js';
import type { AnalyticParams, AnalyticShape } from './analytic-workload.js';
import type { RunningEngine } from './engines/engine.js';
import { send } from './http-driver.js';

export interface AnalyticInstance {
  shape: AnalyticShape;
  /** From 1: which parameter set. */
  index: number;
  params: AnalyticParams;
  text: string;
}

export interface InstanceResult {
  shape: string;
  index: number;
  /** Measured wall times, ms (failed requests left out). */
  ms: number[];
  /** The first measured answer, or the first error. */
  answer: Row[] | { error: string };
}

export function analyticInstances(shapes: AnalyticShape[], paramSets: AnalyticParams[]): AnalyticInstance[] {
  return shapes.flatMap((shape) => paramSets.map((params, i) => ({ shape, index: i + 1, params, text: shape.text(params) })));
}

export async function runAnalytic(
  engine: RunningEngine,
  instances: AnalyticInstance[],
  repeats: number,
  timeoutMs: number,
  log: (m: string) => void,
): Promise<InstanceResult[]> {
  const fresh = engine.protocol?.freshConnections === true;
  const agent = new Agent({ keepAlive: !fresh, maxSockets: 1 });
  const options = { endpoint: engine.endpoint, clients: 1, timeoutMs, protocol: engine.protocol };
  const results = instances.map((i) => ({
    shape: i.shape.name,
    index: i.index,
    ms: [] as number[],
    answer: undefined as InstanceResult['answer'] | undefined,
  }));
  try {
    for (let round = 0; round <= repeats; round++) {
      log(`${engine.name}: analytic ${round === 0 ? 'warm-up' : `round ${round} of ${repeats}`} (${instances.length} queries)`);
      for (const [i, instance] of instances.entries()) {
        const result = results[i];
        // A query that failed (a timeout, an error) is not sent again: it would only burn the time limit.
        if (result.answer !== undefined && !Array.isArray(result.answer)) continue;
        const started = process.hrtime.bigint();
        try {
          const body = await send({ form: 'select', text: instance.text }, agent, options);
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (round > 0) result.ms.push(ms);
          if (round === 1) result.answer = answerOf(body);
        } catch (error) {
          result.answer = { error: (error as Error).message.slice(0, 300) };
        }
      }
    }
  } finally {
    agent.destroy();
  }
  return results.map((r) => ({ ...r, answer: r.answer ?? { error: 'not run' } }));
}

function answerOf(body: Buffer): Row[] | { error: string } {
  try {
    return parseRows(body.toString('utf8'));
  } catch (error) {
    return { error: (error as Error).message };
  }
}
