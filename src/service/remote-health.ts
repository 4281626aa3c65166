/**
 * What {base}/health and {base}/metrics say in remote mode. The service is healthy when the remote
 * answers: a trivial ASK with a short time limit, whose outcome is kept for a moment so that load
 * balancers polling several times a second cost the remote one query a second, and checks that
 * arrive while one is under way wait for it rather than starting their own.
 */
import type { RemoteHealth, RemoteRequestCounts } from './sparql-service.js';

/** How long the outcome of a check stands. */
export const HEALTH_CHECK_TTL_MS = 1500;
/** Time limit of a check: a remote slower than this to answer ASK {} is not serving. */
export const HEALTH_CHECK_TIMEOUT_MS = 2000;

/** Asks the remote once; rejects (with the reason) when it does not answer. */
export type Probe = (timeoutMs: number) => Promise<void>;

export class RemoteHealthCheck {
  private last: { health: RemoteHealth; at: number } | undefined;
  private running: Promise<RemoteHealth> | undefined;

  constructor(
    private readonly endpoint: string,
    private readonly probe: Probe,
    private readonly ttlMs = HEALTH_CHECK_TTL_MS,
    private readonly timeoutMs = HEALTH_CHECK_TIMEOUT_MS,
  ) {}

  /** The outcome of the last check if it is recent, else of a new one. */
  async current(): Promise<RemoteHealth> {
    if (this.last && performance.now() - this.last.at < this.ttlMs) return this.last.health;
    this.running ??= this.check().finally(() => (this.running = undefined));
    return this.running;
  }

  private async check(): Promise<RemoteHealth> {
    const started = performance.now();
    const checkedAt = new Date().toISOString();
    let health: RemoteHealth;
    try {
      await this.probe(this.timeoutMs);
      health = { endpoint: this.endpoint, answering: true, latencyMs: elapsedSince(started), checkedAt };
    } catch (error) {
      health = { endpoint: this.endpoint, answering: false, latencyMs: elapsedSince(started), checkedAt, error: (error as Error).message };
    }
    this.last = { health, at: performance.now() };
    return health;
  }
}

/** Counters of the requests sent to the remote, for {base}/metrics. */
export class RemoteRequestStatistics {
  private readonly counts: RemoteRequestCounts = { requests: 0, failures: 0, seconds: 0 };

  observe(elapsedMs: number, failed: boolean): void {
    this.counts.requests++;
    if (failed) this.counts.failures++;
    this.counts.seconds += elapsedMs / 1000;
  }

  snapshot(): RemoteRequestCounts {
    return { ...this.counts };
  }
}

function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
