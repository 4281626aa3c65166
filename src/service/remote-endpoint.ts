/**
 * One HTTP exchange with the remote SPARQL endpoint at a time: a form POST (the one request shape
 * every SPARQL 1.1 Protocol server accepts, with no limit on the query's length), credentials that
 * go to the remote only, and a signal that ends the exchange when the time limit passes, the client
 * goes away or the service closes — whether the remote is still thinking or still streaming.
 */
import { CancelledError, OverloadedError, QuiverError, SyntaxError as QuiverSyntaxError, TimeoutError } from '../errors.js';
import { errorForRemoteStatus, isStaleConnection, networkCause, redactedEndpoint, RemoteEndpointError } from './remote-errors.js';

export interface RemoteCredentials {
  /** HTTP Basic authentication. */
  user?: string;
  password?: string;
  /** A bearer token (wins over user and password). */
  token?: string;
}

type EndReason = 'timeout' | 'cancelled' | 'closed';

/**
 * The life of one request to the remote: from sending it to the last byte of its answer. Whatever
 * ends it early aborts the fetch, which closes the connection and so stops the remote's work too.
 */
export class RemoteExchange {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private reason: EndReason | undefined;
  private readonly onClientGone = (): void => this.end('cancelled');
  private released = false;
  private answered = false;

  constructor(
    readonly endpoint: string,
    private readonly timeoutMs: number,
    private readonly clientSignal: AbortSignal | undefined,
    private readonly onRelease: (exchange: RemoteExchange) => void,
  ) {
    this.timer = setTimeout(() => this.end('timeout'), timeoutMs);
    if (clientSignal?.aborted) this.end('cancelled');
    else clientSignal?.addEventListener('abort', this.onClientGone, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the exchange (if it still runs) for a reason our client will be told. */
  end(reason: EndReason): void {
    this.reason ??= reason;
    this.controller.abort();
    this.release();
  }

  /** The remote's answer has been read to its last byte: its connection can serve the next request. */
  answeredCompletely(): void {
    this.answered = true;
  }

  /** The answer was read to its end, or nobody will read the rest: free the connection and timer. */
  release(): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    this.clientSignal?.removeEventListener('abort', this.onClientGone);
    // A body not read to its end would keep its connection busy: abort closes it. (Not otherwise:
    // an abort costs an exception object and keeps a kept-alive connection from being reused.)
    if (!this.answered) this.controller.abort();
    this.onRelease(this);
  }

  /** Our error for anything that went wrong while talking to the remote or reading its answer. */
  failure(error: unknown): Error {
    switch (this.reason) {
      case 'timeout':
        return new TimeoutError(`the remote endpoint ${this.endpoint} did not answer within the time limit (${this.timeoutMs} ms)`);
      case 'cancelled':
        return new CancelledError();
      case 'closed':
        return new OverloadedError('the service is shutting down');
    }
    // A syntax error here is in the remote's answer (an RDF document), not in our client's request.
    if (error instanceof QuiverError && !(error instanceof QuiverSyntaxError)) return error;
    const { code, message } = networkCause(error);
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
      return new RemoteEndpointError(`the remote endpoint ${this.endpoint} cannot be reached (${code}): ${message}`);
    }
    if (error instanceof Error && error.name !== 'TypeError' && !code) {
      // A parser's complaint about the remote's answer (its results or RDF do not follow their format).
      return new RemoteEndpointError(`the answer of the remote endpoint ${this.endpoint} could not be read: ${error.message}`);
    }
    return new RemoteEndpointError(`the connection to the remote endpoint ${this.endpoint} failed${code ? ` (${code})` : ''}: ${message}`);
  }
}

/** Bytes of a remote error body we read for its message; the rest is dropped. */
const MAX_ERROR_BODY = 64 * 1024;

export class RemoteEndpoint {
  readonly url: string;
  /** For messages and logs: without credentials or query string. */
  readonly name: string;
  private readonly authorization: string | undefined;

  constructor(endpoint: string, credentials: RemoteCredentials = {}) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new TypeError(`the remote endpoint must be an absolute http(s) URL, not '${endpoint.replace(/\/\/[^@/]*@/, '//…@')}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the remote endpoint must be an http(s) URL, not ${url.protocol}`);
    // fetch refuses URLs with user:password; they become Basic credentials unless others are given.
    const fromUrl = { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = '';
    url.password = '';
    this.url = url.href;
    this.name = redactedEndpoint(url);
    this.authorization = authorizationHeader(credentials.user || credentials.token ? credentials : fromUrl);
  }

  /**
   * Sends a form and resolves with the remote's 2xx response, its body still unread. Any other
   * status rejects with our error for it; a query (`retryStale`) is sent once more when a kept-alive
   * connection turns out to have been closed by the remote (it restarted) before answering.
   */
  async post(form: URLSearchParams, accept: string, exchange: RemoteExchange, retryStale: boolean): Promise<Response> {
    let response: Response;
    try {
      response = await this.send(form, accept, exchange);
    } catch (error) {
      if (!retryStale || !isStaleConnection(error) || exchange.signal.aborted) throw exchange.failure(error);
      try {
        response = await this.send(form, accept, exchange);
      } catch (again) {
        throw exchange.failure(again);
      }
    }
    if (response.ok) return response;
    const body = await boundedText(response).catch(() => '');
    exchange.release();
    throw errorForRemoteStatus(response.status, response.statusText, body, this.name);
  }

  private send(form: URLSearchParams, accept: string, exchange: RemoteExchange): Promise<Response> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      accept,
    };
    if (this.authorization) headers.authorization = this.authorization;
    return fetch(this.url, { method: 'POST', headers, body: form.toString(), signal: exchange.signal, redirect: 'follow' });
  }
}

function authorizationHeader(credentials: RemoteCredentials): string | undefined {
  if (credentials.token) return `Bearer ${credentials.token}`;
  if (credentials.user) return `Basic ${Buffer.from(`${credentials.user}:${credentials.password ?? ''}`).toString('base64')}`;
  return undefined;
}

async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}
