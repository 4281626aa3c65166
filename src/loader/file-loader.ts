/**
 * Loads one RDF source into a store, all or nothing: a parse worker reads and parses (parse-worker.ts)
 * while this thread interns terms and writes index entries in large sorted batches
 * (StoreWriter.addAll). A syntax error, or the process dying half way, leaves the store exactly as
 * it was before the file. It is a staged load (store/staged-load.ts): several transactions, so memory
 * stays bounded, undone by the loader on error or by the next open after a crash. A staged load needs
 * the store to itself; when another handle (a running server, another load) has it open, the load is
 * one write transaction (a crash before it commits leaves nothing), which other writers wait for.
 */
import { Worker } from 'node:worker_threads';
import { QuiverError } from '../errors.js';
import { newBlankNodeScope, termFromKey } from '../rdf/index.js';
import type { QuadStore, StoreWriter, TermId } from '../store/index.js';
import type { ParseableRdfFormat } from '../formats/index.js';
import { warmUpSort } from '../store/index.js';
import type { BatchMessage, ParseJob, ParseWorkerMessage } from './parse-messages.js';

const WORKER_ENTRY = new URL('./parse-worker.js', import.meta.url);
/** Statements per message from the parse worker. */
const PARSE_BATCH = 16_384;
/**
 * Statements per addAll: each goes into the primary index while the parser reads on (the store holds
 * the secondary index entries back and appends them in far larger runs).
 */
const DEFAULT_WRITE_BATCH = 1 << 17;
/** Statements written before the batch is full when the loader would otherwise wait for its parser. */
const EAGER_WRITE = 1 << 15;

export interface LoadSource {
  /** A file path, or '-' for standard input. */
  path: string;
  format: ParseableRdfFormat;
  gzip: boolean;
}

export interface LoadFileOptions {
  /** Term key of the graph for default-graph statements; the default graph when unset. */
  graphKey?: string;
  baseIri?: string;
  /** Skip and count bad statements rather than failing the file. */
  lenient?: boolean;
  /** Statements per sorted write (tests lower it to exercise many batches). */
  writeBatch?: number;
  /** Statements per transaction when loading into an empty store in stages (tests lower it). */
  stageStatements?: number;
  /** Terms the parser remembers before it starts over (tests lower it to exercise the look-ups after that). */
  termLimit?: number;
  onProgress?: (progress: LoadProgress) => void;
  /** Called for each skipped statement reported (the first few of a file). */
  onSkipped?: (message: string) => void;
  /**
   * Called when the store is empty but open elsewhere (these pids), so that the load is one
   * transaction instead of a staged load.
   */
  onSharedStore?: (pids: number[]) => void;
}

export interface LoadProgress {
  statements: number;
  skipped: number;
  bytesRead: number;
}

export interface FileLoadResult extends LoadProgress {
  /** Statements that were not in the store already. */
  added: number;
}

/** Bad data in a loaded file: the message names the file, line and column. */
export class LoadSyntaxError extends QuiverError {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    const position = line === undefined ? '' : column === undefined ? `:${line}` : `:${line}:${column}`;
    super(`${file}${position}: ${reason}`);
    this.name = 'LoadSyntaxError';
  }
}

export async function loadFile(store: QuadStore, source: LoadSource, options: LoadFileOptions = {}): Promise<FileLoadResult> {
  if (!store.writeAsync) throw new Error('this store cannot hold a transaction open across a streamed load');
  const messages = startParser(source, options);
  // While the parser starts (tens of ms in which this thread would wait): the sort, compiled now,
  // does not run its first large batches unoptimized.
  warmUpSort();
  try {
    const staged = (store as StagedLoading).beginStagedLoad?.(options.onSharedStore);
    if (staged) return await loadInStages(staged, messages, source, options);
    return await store.writeAsync((writer) => new MessageConsumer(writer, messages, source, options).consume(Infinity).then(loadResult));
  } finally {
    await messages.stop();
  }
}

/** A store that can take a load in several transactions (LmdbQuadStore; see store/staged-load.ts). */
interface StagedLoading {
  beginStagedLoad?(onShared?: (pids: number[]) => void): StagedLoadHandle | undefined;
}

interface StagedLoadHandle {
  stage<T>(fn: (writer: StoreWriter) => Promise<T>): Promise<T>;
  finish(): void;
  abort(): void;
}

/** Statements per transaction of a staged load: bounds what LMDB holds in memory (dirty pages). */
const DEFAULT_STAGE_STATEMENTS = 1 << 20;

async function loadInStages(load: StagedLoadHandle, messages: MessageChannel, source: LoadSource, options: LoadFileOptions): Promise<FileLoadResult> {
  const budget = options.stageStatements ?? DEFAULT_STAGE_STATEMENTS;
  try {
    let consumer: MessageConsumer | undefined;
    let result: FileLoadResult | undefined;
    while (result === undefined) {
      result = await load.stage(async (writer) => {
        consumer ??= new MessageConsumer(writer, messages, source, options);
        return consumer.consume(budget);
      });
    }
    load.finish();
    return result;
  } catch (error) {
    load.abort();
    throw error;
  }
}

function loadResult(result: FileLoadResult | undefined): FileLoadResult {
  if (result === undefined) throw new Error('the parser ended without a result');
  return result;
}

interface MessageChannel extends AsyncIterable<ParseWorkerMessage> {
  /** Messages received and not yet consumed. */
  readonly waiting: number;
  ack(): void;
  stop(): Promise<void>;
}

function startParser(source: LoadSource, options: LoadFileOptions): MessageChannel {
  const job: ParseJob = {
    source: source.path,
    format: source.format,
    gzip: source.gzip,
    baseIri: options.baseIri,
    graphKey: options.graphKey ?? 'D',
    lenient: options.lenient === true,
    blankPrefix: newBlankNodeScope('f'),
    batchSize: PARSE_BATCH,
    termLimit: options.termLimit,
  };
  const fromStdin = source.path === '-';
  const worker = new Worker(WORKER_ENTRY, { workerData: job, stdin: fromStdin });
  if (fromStdin && worker.stdin) process.stdin.pipe(worker.stdin);
  const queue: ParseWorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const push = (message: ParseWorkerMessage): void => {
    queue.push(message);
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  worker.on('message', push);
  worker.on('error', (error: Error) => push({ type: 'error', message: `the parser failed: ${error.message}` }));
  worker.on('exit', () => {
    if (!ended) push({ type: 'error', message: 'the parser stopped unexpectedly' });
  });
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const message = queue.shift();
        if (message === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if (message.type === 'end' || message.type === 'error') ended = true;
        yield message;
        if (ended) return;
      }
    },
    get waiting() {
      return queue.length;
    },
    ack: () => worker.postMessage({ type: 'ack' }),
    stop: async () => {
      ended = true;
      if (fromStdin && worker.stdin) process.stdin.unpipe(worker.stdin);
      await worker.terminate();
    },
  };
}

/** Turns the parser's messages into writes; may stop after a number of statements and go on later. */
class MessageConsumer {
  private readonly batcher: WriteBatcher;
  private readonly iterator: AsyncIterator<ParseWorkerMessage>;

  constructor(
    writer: StoreWriter,
    private readonly messages: MessageChannel,
    private readonly source: LoadSource,
    private readonly options: LoadFileOptions,
  ) {
    this.batcher = new WriteBatcher(writer, options.writeBatch ?? DEFAULT_WRITE_BATCH);
    this.iterator = messages[Symbol.asyncIterator]();
  }

  /** Consumes messages up to the end (the result), or until about `budget` statements went in (undefined). */
  async consume(budget: number): Promise<FileLoadResult | undefined> {
    const { batcher, options } = this;
    let taken = 0;
    while (taken < budget) {
      const next = await this.iterator.next();
      if (next.done) throw new Error('the parser ended without a result');
      const message = next.value;
      switch (message.type) {
        case 'batch':
          batcher.take(message);
          this.messages.ack();
          // Written when full, or earlier while the parser has nothing more to hand over: this
          // thread would wait anyway, and less is left for after the parser's last batch.
          if (batcher.count >= batcher.capacity || (batcher.count >= EAGER_WRITE && this.messages.waiting === 0)) batcher.writeAll();
          taken += message.count;
          options.onProgress?.(message);
          break;
        case 'skipped':
          options.onSkipped?.(message.message);
          break;
        case 'error':
          throw new LoadSyntaxError(displayName(this.source.path), bareMessage(message.message), message.line, message.column);
        case 'end':
          batcher.writeAll();
          options.onProgress?.(message);
          return { statements: message.statements, skipped: message.skipped, bytesRead: message.bytesRead, added: batcher.added };
      }
    }
    return undefined;
  }
}

/** The LMDB writer's extras for loads (see lmdb-writer.ts); any StoreWriter works without them. */
type BulkWriter = StoreWriter & {
  internKey?: (key: string) => TermId;
  internNewKeyBytes?: (keyBytes: Uint8Array, hashHigh: number, hashLow: number, coded?: Uint8Array) => TermId;
  internKeyBytes?: (keyBytes: Uint8Array, hashHigh: number, hashLow: number, coded?: Uint8Array) => TermId;
  startedEmpty?: () => boolean;
};

/** Maps local term numbers to store IDs and collects statements for sorted bulk writes. */
class WriteBatcher {
  added = 0;
  private ids = new Uint32Array(1 << 16);
  /**
   * The store was empty when the load began and the parser has sent each key once: every key is
   * new, so interning needs no look-up.
   */
  private allKeysNew: boolean;
  private readonly pending: Uint32Array;
  /** Statements taken and not written yet. */
  count = 0;

  constructor(
    private readonly writer: StoreWriter,
    readonly capacity: number,
  ) {
    this.pending = new Uint32Array(capacity * 4);
    this.allKeysNew = (writer as BulkWriter).startedEmpty?.() === true && (writer as BulkWriter).internNewKeyBytes !== undefined;
  }

  take(batch: BatchMessage): void {
    if (batch.reset) {
      this.ids.fill(0);
      // The parser forgot which keys it sent: a key may come again and must be looked up.
      this.allKeysNew = false;
    }
    this.internNewTerms(batch);
    // Room is made before each run of quads, not checked per quad (a parse batch is usually far
    // smaller than a write batch; tests make write batches smaller).
    for (let done = 0; done < batch.count;) {
      if (this.count === this.capacity) this.writeAll();
      const n = Math.min(batch.count - done, this.capacity - this.count);
      mapQuads(batch.quads, done, n, this.ids, this.pending, this.count);
      this.count += n;
      done += n;
    }
  }

  private internNewTerms(batch: BatchMessage): void {
    const { firstLocal, termBytes, termEnds, termHashes, codedBytes, codedEnds } = batch;
    const needed = firstLocal + termEnds.length;
    if (needed > this.ids.length) {
      const grown = new Uint32Array(Math.max(needed, this.ids.length * 2));
      grown.set(this.ids);
      this.ids = grown;
    }
    const writer = this.writer as BulkWriter;
    const ids = this.ids;
    // The parser's coded value of term i, if it coded one.
    const codedOf = (i: number): Uint8Array | undefined => {
      const start = i === 0 ? 0 : codedEnds[i - 1];
      return codedEnds[i] > start ? codedBytes.subarray(start, codedEnds[i]) : undefined;
    };
    // One loop per way of interning (the same for a whole batch).
    let start = 0;
    if (this.allKeysNew) {
      for (let i = 0; i < termEnds.length; i++) {
        const end = termEnds[i];
        ids[firstLocal + i] = writer.internNewKeyBytes!(termBytes.subarray(start, end), termHashes[2 * i], termHashes[2 * i + 1], codedOf(i));
        start = end;
      }
    } else if (writer.internKeyBytes) {
      for (let i = 0; i < termEnds.length; i++) {
        const end = termEnds[i];
        ids[firstLocal + i] = writer.internKeyBytes(termBytes.subarray(start, end), termHashes[2 * i], termHashes[2 * i + 1], codedOf(i));
        start = end;
      }
    } else {
      for (let i = 0; i < termEnds.length; i++) {
        const end = termEnds[i];
        const key = decoder.decode(termBytes.subarray(start, end));
        ids[firstLocal + i] = writer.internKey ? writer.internKey(key) : writer.intern(termFromKey(key));
        start = end;
      }
    }
  }

  writeAll(): void {
    if (this.count === 0) return;
    const writer = this.writer;
    if (writer.addAll) {
      this.added += writer.addAll(this.pending, this.count);
    } else {
      const q = this.pending;
      for (let i = 0; i < this.count * 4; i += 4) if (writer.add(q[i]!, q[i + 1]!, q[i + 2]!, q[i + 3]!)) this.added++;
    }
    this.count = 0;
  }
}

/** Writes `count` quads of local numbers, from quad number `from` on, as store IDs into pending from quad number `at` on. */
function mapQuads(quads: Uint32Array, from: number, count: number, ids: Uint32Array, pending: Uint32Array, at: number): void {
  for (let i = from * 4, to = at * 4; i < (from + count) * 4; i += 4, to += 4) {
    pending[to] = ids[quads[i]];
    pending[to + 1] = ids[quads[i + 1]];
    pending[to + 2] = ids[quads[i + 2]];
    pending[to + 3] = ids[quads[i + 3]];
  }
}

const decoder = new TextDecoder();

function displayName(path: string): string {
  return path === '-' ? '<stdin>' : path;
}

/** Parsers append the position to their messages; the load error puts it in front instead. */
function bareMessage(message: string): string {
  return message.replace(/ \(line \d+(?:, column (?:\d+|undefined))?\)$/, '');
}
