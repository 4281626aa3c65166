/**
 * One query's life on the main thread: waiting in the queue, running on a worker, streaming to its
 * consumer. It turns worker messages into the QueryResult the caller sees, and every way a query
 * can end early (time limit, aborted signal, consumer gone) into one `stop(reason)`.
 */
import { CancelledError, TimeoutError, type QuiverError } from '../errors.js';
import type { Quad } from '../rdf/index.js';
import { BatchStream } from './batch-stream.js';
import { deserializeError } from './error-transport.js';
import type { CancelSignal, DocumentFormat, DocumentFormats, QueryResult, ResultDocument, SolutionRow } from './sparql-service.js';
import { TermTableDecoder, type EncodedBatch } from './transfer-term-table.js';
import type { QueryWorkerReply, ResultHead, RunQueryMessage } from './worker-messages.js';

export type QueryJobSpec = Omit<RunQueryMessage, 'type' | 'jobId' | 'documentFormats'> & {
  /** Formats a result that fits one message may come written in (see QueryRequest.documentFormats). */
  documentFormats?: DocumentFormats;
  signal?: CancelSignal;
  /** Told how long the job kept its worker, when it ran to its end. */
  onWorkerTime?: (ms: number) => void;
};

/** What a job needs from the worker it runs on. */
export interface JobHost {
  /** Tell the worker the consumer took a batch. */
  acknowledge(): void;
  /** Ask the worker to stop; it must answer within the grace period or be replaced. */
  cancel(): void;
}

let nextJobId = 1;

export class QueryJob {
  readonly id = nextJobId++;
  state: 'queued' | 'running' | 'done' = 'queued';
  /** Why we stopped it, when we did: this, not the worker's own account, is what the caller sees. */
  stopReason?: QuiverError;
  readonly result: Promise<QueryResult>;

  private resolveResult!: (result: QueryResult) => void;
  private rejectResult!: (error: Error) => void;
  private settled = false;
  private head?: ResultHead;
  private stream?: BatchStream<SolutionRow> | BatchStream<Quad>;
  private readonly decoder = new TermTableDecoder();
  private host?: JobHost;
  private readonly onAbort = (): void => this.stop(new CancelledError());
  private readonly deadlineTimer: NodeJS.Timeout;

  constructor(
    readonly spec: QueryJobSpec,
    /** Called once when the job is over on the worker side (or never started there). */
    private readonly onStopped: (job: QueryJob) => void,
  ) {
    this.result = new Promise<QueryResult>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    spec.signal?.addEventListener('abort', this.onAbort, { once: true });
    // The time limit counts from arrival: time spent in the queue is time the client waited.
    this.deadlineTimer = setTimeout(() => this.stop(new TimeoutError()), Math.max(0, spec.deadline - Date.now()));
  }

  get runMessage(): RunQueryMessage {
    const { signal: _signal, onWorkerTime: _onWorkerTime, documentFormats, ...rest } = this.spec;
    const message: RunQueryMessage = { type: 'run', jobId: this.id, ...rest };
    if (documentFormats) message.documentFormats = { solutions: documentFormats.solutions?.format, quads: documentFormats.quads?.format };
    return message;
  }

  startedOn(host: JobHost): void {
    this.state = 'running';
    this.host = host;
  }

  /** A message from the worker about this job. */
  receive(reply: QueryWorkerReply): void {
    if (this.stopReason) {
      // The caller has had its answer; only the worker's last word matters now: it is free.
      if (reply.type === 'end' || reply.type === 'error' || reply.type === 'boolean' || reply.type === 'explain' || (reply.type === 'batch' && reply.last)) {
        this.finish();
      }
      return;
    }
    if ('busyMs' in reply && reply.busyMs !== undefined) this.spec.onWorkerTime?.(reply.busyMs);
    switch (reply.type) {
      case 'boolean':
        this.settle({ kind: 'boolean', value: reply.value });
        this.finish();
        break;
      case 'explain':
        this.settle({ kind: 'explain', explanation: reply.explanation });
        this.finish();
        break;
      case 'batch': {
        if (reply.head) this.head = reply.head;
        if (reply.document && reply.last && !this.stream) {
          this.settleDocument(reply.document, reply.batch);
          this.finish();
          break;
        }
        const stream = this.openStream();
        if (reply.batch) stream.push(this.decode(reply.batch) as never);
        if (reply.last) {
          stream.end();
          this.finish();
        }
        break;
      }
      case 'end':
        this.openStream().end();
        this.finish();
        break;
      case 'error':
        this.fail(this.stopReason ?? deserializeError(reply.error));
        this.finish();
        break;
    }
  }

  /** Ends the job early. Idempotent; the first reason wins. */
  stop(reason: QuiverError): void {
    if (this.state === 'done' || this.stopReason) return;
    this.stopReason = reason;
    this.fail(reason);
    if (this.state === 'queued') this.finish();
    else this.host!.cancel();
  }

  /** The worker will never answer (it crashed or was replaced). */
  abandonOnWorker(reason: QuiverError): void {
    if (this.state === 'done') return;
    this.fail(this.stopReason ?? reason);
    this.finish();
  }

  private decode(batch: Parameters<TermTableDecoder['decodeRows']>[0]): SolutionRow[] | Quad[] {
    return this.head?.kind === 'quads' ? this.decoder.decodeQuads(batch) : this.decoder.decodeRows(batch);
  }

  /**
   * A whole result in one message, written by the worker: its rows are decoded only if someone reads
   * them (the HTTP layer sends the document instead).
   */
  private settleDocument(bytes: Uint8Array, batch: EncodedBatch | undefined): void {
    const head = this.head!;
    const rows = batch?.rowCount ?? 0;
    const decoded = (): SolutionRow[] | Quad[] => (batch ? this.decode(batch) : []);
    if (head.kind === 'quads') {
      const document = documentOf(bytes, rows, this.spec.documentFormats?.quads);
      this.settle({ kind: 'quads', prefixes: head.prefixes, quads: oneBatch(decoded as () => Quad[]), document });
    } else {
      const document = documentOf(bytes, rows, this.spec.documentFormats?.solutions);
      this.settle({ kind: 'bindings', variables: head.variables, rows: oneBatch(decoded as () => SolutionRow[]), document });
    }
  }

  /** The result resolves with the first batch (or the end), so errors before it reject query(). */
  private openStream(): BatchStream<SolutionRow> | BatchStream<Quad> {
    if (this.stream) return this.stream;
    const hooks = {
      onPull: () => {
        if (this.state === 'running') this.host!.acknowledge();
      },
      onAbandon: () => this.stop(new CancelledError('the consumer stopped reading')),
    };
    const head = this.head!;
    if (head.kind === 'quads') {
      const stream = new BatchStream<Quad>(hooks);
      this.stream = stream;
      this.settle({ kind: 'quads', prefixes: head.prefixes, quads: stream });
    } else {
      const stream = new BatchStream<SolutionRow>(hooks);
      this.stream = stream;
      this.settle({ kind: 'bindings', variables: head.variables, rows: stream });
    }
    return this.stream;
  }

  private settle(result: QueryResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveResult(result);
  }

  private fail(error: Error): void {
    if (!this.settled) {
      this.settled = true;
      this.rejectResult(error);
    } else {
      this.stream?.fail(error);
    }
  }

  private finish(): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.host = undefined;
    clearTimeout(this.deadlineTimer);
    this.spec.signal?.removeEventListener('abort', this.onAbort);
    this.onStopped(this);
  }
}

function documentOf(bytes: Uint8Array, rows: number, format: DocumentFormat | undefined): ResultDocument | undefined {
  if (!format) return undefined;
  let text: string | undefined;
  return {
    mediaType: format.mediaType,
    bytes,
    rows,
    get text(): string {
      text ??= new TextDecoder().decode(bytes);
      return text;
    },
  };
}

/** The rows of a finished result, built on the first read. */
function oneBatch<T>(batch: () => T[]): AsyncIterable<T[]> {
  return {
    async *[Symbol.asyncIterator](): AsyncGenerator<T[]> {
      const rows = batch();
      if (rows.length > 0) yield rows;
    },
  };
}
