/**
 * Cross-checks the engines' answers: every run of a query instance (each engine, each client count)
 * must return the same number of rows, and, where the answer is fully determined (no LIMIT/OFFSET
 * that may cut between ties), the same rows. A fast wrong answer is a bug, not a result.
 */
import type { QuerySample } from './http-driver.js';
import { instanceKey, type QueryMix } from './query-mixes.js';

export interface RunSamples {
  /** e.g. "quiver/4 clients". */
  label: string;
  samples: QuerySample[];
}

export interface Disagreement {
  query: string;
  mix: number;
  seq: number;
  params: Record<string, string>;
  /** Per run label: the row count, or the error. */
  answers: Record<string, number | string>;
}

export interface AnswerCheck {
  /** Instances compared (answered by at least two runs). */
  compared: number;
  rowCountDisagreements: Disagreement[];
  /** Same counts but different rows, on deterministic instances only. */
  contentDisagreements: Disagreement[];
  /** Instances where some run failed (HTTP error, timeout, unparsable answer). */
  failures: Disagreement[];
}

export function checkAnswers(mixes: QueryMix[], runs: RunSamples[]): AnswerCheck {
  const byRun = runs.map((run) => ({ label: run.label, samples: new Map(run.samples.map((s) => [instanceKey(s.mix, s.seq), s])) }));
  const check: AnswerCheck = { compared: 0, rowCountDisagreements: [], contentDisagreements: [], failures: [] };
  for (const mix of mixes) {
    for (const instance of mix.queries) {
      const key = instanceKey(mix.mix, instance.seq);
      const found = byRun.flatMap((run) => {
        const sample = run.samples.get(key);
        return sample ? [{ label: run.label, sample }] : [];
      });
      if (found.length === 0) continue;
      const entry = (answers: Record<string, number | string>): Disagreement => ({
        query: instance.query,
        mix: mix.mix,
        seq: instance.seq,
        params: instance.params,
        answers,
      });
      const failed = found.filter((f) => f.sample.error !== undefined);
      if (failed.length > 0) check.failures.push(entry(Object.fromEntries(found.map((f) => [f.label, f.sample.error ?? f.sample.rows!]))));
      const answered = found.filter((f) => f.sample.error === undefined);
      if (answered.length < 2) continue;
      check.compared++;
      const counts = Object.fromEntries(answered.map((f) => [f.label, f.sample.rows!]));
      if (new Set(Object.values(counts)).size > 1) check.rowCountDisagreements.push(entry(counts));
      else if (instance.deterministic && new Set(answered.map((f) => f.sample.digest)).size > 1) {
        check.contentDisagreements.push(entry(Object.fromEntries(answered.map((f) => [f.label, `${f.sample.rows} rows, digest ${f.sample.digest}`]))));
      }
    }
  }
  return check;
}
