/**
 * What the server fetches on a request's behalf: LOAD documents and SERVICE answers. Everything about such a fetch is bounded, because its target and its answer are
 * in the hands of whoever sent the request (and of whoever runs the target):
 * - where it goes: the target policy (fetch-targets.ts), checked on every address a name resolves
 *   to at connect time (a `lookup` of our own, so a DNS answer cannot change between check and use)
 *   and again for every redirect;
 * - how much it reads: the body is counted as it streams against a byte budget that all the
 *   request's fetches share, and the connection is closed as soon as it is over;
 * - how long it takes: one time limit from the first byte sent to the last byte read, whichever is
 *   sooner of the fetch limit and the request's own, with the request's cancellation polled.
 *
 * Sent through undici (http-client.ts: sendOnce) rather than the global fetch: a dispatcher per
 * request whose connector takes our `lookup` is what makes the connect-time check possible, and its
 * body stream gives the byte counting backpressure. No connection is reused: a pooled socket would
 * skip the check of the address it was opened to.
 *
 * Errors name the fetch's purpose (`LOAD <iri>`) and the limit with its flag; they never carry
 * what the target answered, which may be a secret of a host the requester cannot see.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Transform } from 'node:stream';
import { EvaluationError, ProtocolError, QuiverError, ResourceLimitError, TimeoutError } from '../errors.js';
import { literalAddress, targetPolicy, type TargetPolicy } from './fetch-targets.js';
import { loadUndici, sendOnce, type OnceResponse } from './http-client.js';

/** What limits an outbound fetch: `quiver serve --fetch-allow`, `--max-fetch-bytes`, `--fetch-timeout`. */
export interface FetchSettings {
  /** Targets opened beyond the public internet (see fetch-targets.ts for the entries). */
  allow?: readonly string[];
  /** Bytes one request may fetch in all (every LOAD of an update, every SERVICE of a query). */
  maxBytes?: number;
  /** Time limit of one fetch, from request to last byte, in ms. */
  timeoutMs?: number;
  /**
   * IRIs fetched from another URL: a SERVICE endpoint or LOAD document IRI (exactly as the request
   * writes it) mapped to the URL that answers for it, such as a mirror of a public endpoint or a
   * local copy of a document. The target policy applies to the URL fetched, so an alias to this
   * machine or the private network needs `allow` too. Errors keep naming the IRI the request wrote.
   */
  aliases?: Readonly<Record<string, string>>;
}

export const DEFAULT_MAX_FETCH_BYTES = 64 * 2 ** 20;
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 5;
/** How often a fetch in progress asks whether its request was cancelled. */
const CHECKPOINT_INTERVAL_MS = 100;

/** A byte limit, and what to call it in the error that reports it crossed. */
export interface ByteLimit {
  bytes: number;
  /** E.g. "the fetch limit (--max-fetch-bytes)". */
  name: string;
}

/** The bytes one request's fetches have read, against the limits they share. */
export class FetchBudget {
  private used = 0;
  private readonly limits: ByteLimit[];

  constructor(settings: FetchSettings = {}, ...more: ByteLimit[]) {
    this.limits = [{ bytes: settings.maxBytes ?? DEFAULT_MAX_FETCH_BYTES, name: 'the fetch limit (--max-fetch-bytes)' }, ...more];
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.used;
  }

  /** Counts bytes read; throws a ResourceLimitError naming the limit they cross. */
  charge(bytes: number, purpose: string): void {
    this.used += bytes;
    this.check(0, purpose);
  }

  /** Throws when `more` bytes on top of those read would cross a limit (a Content-Length known up front). */
  check(more: number, purpose: string): void {
    for (const limit of this.limits) {
      if (this.used + more > limit.bytes) {
        throw new ResourceLimitError(`${purpose}: the answer is larger than ${formatBytes(limit.bytes)}, ${limit.name}; it was not read further`);
      }
    }
  }
}

export interface OutboundRequest {
  url: string;
  /** What the fetch is for, as its errors name it, e.g. `LOAD <http://example.org/data.ttl>`. */
  purpose: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  settings?: FetchSettings;
  budget: FetchBudget;
  /** The request's own time limit (absolute, Date.now() scale); the sooner of it and the fetch limit holds. */
  deadline?: number;
  /** Called every so often while the fetch runs; throws (e.g. CancelledError) to stop it. */
  checkpoint?: () => void;
}

export interface OutboundResponse {
  status: number;
  /** The Content-Type header, '' when there is none. */
  contentType: string;
  /** The URL that answered, after redirects. */
  url: string;
  /**
   * The body, counted against the budget and cut at the time limit as it streams: past either it
   * fails with the limit's error.
   */
  body: NodeJS.ReadableStream;
  /** The whole body as UTF-8 text (within the same limits). */
  text(): Promise<string>;
  /** Stops reading and closes the connection (an answer the caller will not read). */
  close(): void;
}

type Dns = typeof import('node:dns');

let dnsModule: Promise<Dns> | undefined;

/** node:dns, loaded by the first fetch (most requests fetch nothing). */
function loadDns(): Promise<Dns> {
  dnsModule ??= import('node:dns');
  return dnsModule;
}

/** Fetches `request.url`, following redirects; resolves when the head of the final answer is in. */
export async function fetchOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  // Loaded before the time limit starts, as it always was: the first fetch of a process is not slower to the target.
  const [dns] = await Promise.all([loadDns(), loadUndici()]);
  const policy = targetPolicy(request.settings?.allow);
  const watch = new FetchWatch(request);
  try {
    let url = new URL(aliasOf(request.url, request.settings?.aliases));
    let method = request.method ?? 'GET';
    let body = request.body;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      checkScheme(url, request.purpose);
      const response = await exchange(dns, url, method, request.headers ?? {}, body, policy, watch, request.purpose);
      const location = response.headers.location;
      if (response.status >= 300 && response.status < 400 && typeof location === 'string' && location !== '') {
        response.close();
        url = new URL(location, url);
        // As browsers do: 303 (and 301/302 after a POST) fetch the new location with GET.
        if (response.status === 303 || (method === 'POST' && response.status <= 302)) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      return answer(response, url, watch, request.budget, request.purpose);
    }
    throw new EvaluationError(`${request.purpose}: too many redirects`);
  } catch (error) {
    watch.finish();
    throw error;
  }
}

/** The URL fetched for an IRI: its alias when the settings give one, else itself. */
export function aliasOf(iri: string, aliases: FetchSettings['aliases']): string {
  return aliases !== undefined && Object.hasOwn(aliases, iri) ? aliases[iri] : iri;
}

function checkScheme(url: URL, purpose: string): void {
  // Only the web: never other schemes, and never local files through a redirect.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProtocolError(`${purpose} refused: Quiver only fetches http(s) documents, not ${url.protocol}`);
  }
}

/** One request and the head of its answer. */
async function exchange(
  dns: Dns,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  policy: TargetPolicy,
  watch: FetchWatch,
  purpose: string,
): Promise<OnceResponse> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    // An address in the URL is connected to without a lookup: checked here instead.
    const reason = policy.refusal(literal, port);
    if (reason !== undefined) throw refused(purpose, `${literal} is ${reason}`);
  }
  const openedByName = literal === undefined && policy.admitsName(url.hostname, port);
  const stop = new AbortController();
  watch.onStop((error) => stop.abort(error));
  try {
    return await sendOnce({
      url,
      method,
      headers: { 'user-agent': 'Quiver', ...lowerCaseNames(headers) },
      body,
      lookup: openedByName ? undefined : guardedLookup(dns, policy, port, purpose),
      signal: stop.signal,
    });
  } catch (error) {
    throw fetchFailure(error as Error, purpose);
  }
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * A `lookup` that resolves as usual, then refuses unless every address the name resolves to is
 * allowed: the connection goes to one of exactly these addresses, so DNS cannot point elsewhere
 * between the check and the connect.
 */
function guardedLookup(dns: Dns, policy: TargetPolicy, port: number, purpose: string): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      for (const { address } of addresses) {
        const reason = policy.refusal(address, port);
        if (reason !== undefined) return callback(refused(purpose, `${hostname} resolves to ${address}, ${reason}`));
      }
      if (addresses.length === 0) return callback(new EvaluationError(`${purpose}: ${hostname} has no address`));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

function refused(purpose: string, why: string): ProtocolError {
  return new ProtocolError(`${purpose} refused: ${why}, which this server does not fetch from (--fetch-allow opens it)`);
}

/** A network failure, in words that say what happened and nothing of what the target sent. */
function fetchFailure(error: Error, purpose: string): Error {
  if (error instanceof QuiverError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new EvaluationError(`${purpose} failed: ${code ?? error.message}`);
}

/** The final answer: its body metered as it streams. */
function answer(response: OnceResponse, url: URL, watch: FetchWatch, budget: FetchBudget, purpose: string): OutboundResponse {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > 0) {
    try {
      budget.check(declared, purpose);
    } catch (error) {
      response.close();
      throw error;
    }
  }
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        budget.charge(chunk.length, purpose);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
  response.body.on('error', () => body.destroy(new EvaluationError(`${purpose} failed: the connection broke off`)));
  response.body.pipe(body);
  watch.onStop((error) => body.destroy(error));
  body.on('end', () => watch.finish());
  body.on('close', () => {
    watch.finish();
    response.close();
  });
  const contentType = response.headers['content-type'];
  return {
    status: response.status,
    contentType: typeof contentType === 'string' ? contentType : '',
    url: url.toString(),
    body,
    text: () => readText(body),
    close: () => body.destroy(),
  };
}

async function readText(body: Transform): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The time limit and cancellation of one fetch, redirects and body included: when either strikes,
 * whatever is in flight (the request, then the body) is destroyed with the reason.
 */
class FetchWatch {
  private stopped?: Error;
  private stop?: (error: Error) => void;
  private readonly timer: NodeJS.Timeout;
  private readonly poll?: NodeJS.Timeout;

  constructor(request: OutboundRequest) {
    const fetchLimitMs = request.settings?.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    const requestLimitMs = request.deadline !== undefined ? Math.max(0, request.deadline - Date.now()) : Infinity;
    const reason =
      fetchLimitMs <= requestLimitMs
        ? `${request.purpose} did not finish within the fetch time limit of ${fetchLimitMs / 1000} s (--fetch-timeout)`
        : `${request.purpose} did not finish within the request's time limit`;
    this.timer = setTimeout(() => this.fail(new TimeoutError(reason)), Math.min(fetchLimitMs, requestLimitMs));
    const checkpoint = request.checkpoint;
    if (checkpoint) {
      this.poll = setInterval(() => {
        try {
          checkpoint();
        } catch (error) {
          this.fail(error as Error);
        }
      }, CHECKPOINT_INTERVAL_MS);
    }
  }

  /** What to destroy when the fetch must stop (replacing the previous: the request, then the body). */
  onStop(stop: (error: Error) => void): void {
    if (this.stopped) stop(this.stopped);
    else this.stop = stop;
  }

  finish(): void {
    clearTimeout(this.timer);
    clearInterval(this.poll);
  }

  private fail(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    this.finish();
    this.stop?.(error);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30 && bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30} GiB`;
  if (bytes >= 2 ** 20) return `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;
  if (bytes >= 2 ** 10) return `${Math.round((bytes / 2 ** 10) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}
