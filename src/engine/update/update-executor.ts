/**
 * SPARQL 1.1 Update. A request is one transaction: documents for LOAD are fetched first, then
 * every operation runs in one synchronous write transaction, each seeing the effects of those
 * before it. Any failure aborts the transaction, so nothing of the request stays.
 *
 * The time limit and cancellation (options.deadline, options.isCancelled) are checked all along:
 * between batches of the WHERE clause's evaluation, every so many rows while its solutions become
 * quads, and every so many changes while the store writes them (the write's checkpoint), up to the
 * commit. Past the limit the update throws TimeoutError and the transaction is aborted.
 */
import type { Algebra } from '../../sparql/index.js';
import { parseUpdate } from '../../sparql/index.js';
import { EvaluationError, ProtocolError } from '../../errors.js';
import { blankNode, newBlankNodeScope, type Quad, type Term } from '../../rdf/index.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreWriter, type TermId } from '../../store/index.js';
import type { EngineUpdateOptions } from '../engine-api.js';
import { unitBatch } from '../batch.js';
import { ExecContext, checkLimits, checkLimitsEvery } from '../exec-context.js';
import { resolveDataset, type DatasetClauses } from '../dataset.js';
import { Planner } from '../plan/planner.js';
import { Scope, SlotAllocator } from '../plan/scope.js';
import { RowBuffer } from '../row-buffer.js';
import { instantiateTripleTerm, validTriple } from '../construct.js';
import { fetchLoadDocuments, StatementMemory, type LoadedDocuments } from './load-documents.js';
import { chargeRequestText } from '../text-memory.js';
import { UpdateTally, type UpdateSummary } from './update-summary.js';

export async function runUpdate(store: QuadStore, update: string, options: EngineUpdateOptions = {}): Promise<UpdateSummary> {
  return applyUpdate(store, await prepareUpdate(update, options), options);
}

/** An update parsed, with the documents of its LOADs fetched and parsed: ready to apply. */
export interface PreparedUpdate {
  operations: Algebra.Operation[];
  documents: LoadedDocuments;
  /** Memory the parsed text and the documents hold, counted against the update's memory budget. */
  reservedBytes: number;
}

/** Whether an update text's operations include a LOAD (which makes its preparation slow). */
export function hasLoad(prepared: { operations: Algebra.Operation[] }): boolean {
  return prepared.operations.some((op) => op.type === 'load');
}

/**
 * Everything of an update that needs no store: parsing, and fetching what its LOADs name. A
 * service runs this before the update takes the single writer, so that a slow document holds up
 * no other write; `parsed` lets it look at the operations (hasLoad) before the fetching starts.
 */
export async function prepareUpdate(
  update: string,
  options: EngineUpdateOptions = {},
  beforeFetching?: (parsed: { operations: Algebra.Operation[] }) => Promise<void>,
): Promise<PreparedUpdate> {
  const textBytes = chargeRequestText(update, options.memoryBudget, 'update');
  const parsed = parseUpdate(update, options.baseIri);
  const usingParams = (options.usingGraphUris?.length ?? 0) + (options.usingNamedGraphUris?.length ?? 0) > 0;
  if (usingParams && parsed.hasDatasetClauses) {
    throw new ProtocolError('using-graph-uri / using-named-graph-uri may not be combined with USING, USING NAMED or WITH in the request');
  }
  await beforeFetching?.(parsed);
  const memory = new StatementMemory(options.memoryBudget, textBytes);
  const documents = await fetchLoadDocuments(parsed.operations, options, memory);
  return { operations: parsed.operations, documents, reservedBytes: memory.held };
}

/**
 * Runs a prepared update as one synchronous transaction: all of it, or (on any error) nothing.
 * Returns the quads it really inserted and deleted (update-summary.ts).
 */
export function applyUpdate(store: QuadStore, prepared: PreparedUpdate, updateOptions: EngineUpdateOptions = {}): UpdateSummary {
  // The evaluation of the update's WHERE clauses counts on top of what its text and documents hold.
  const options = { ...updateOptions, reservedBytes: prepared.reservedBytes };
  const requestId = newBlankNodeScope('u');
  return store.write(
    (writer) => {
      const tally = new UpdateTally();
      prepared.operations.forEach((op, i) => {
        checkLimits(options);
        applyOperation(op, writer, tally, options, prepared.documents, `${requestId}${i}`);
      });
      return tally.summary((id) => writer.termOf(id));
    },
    { checkpoint: () => checkLimits(options) },
  );
}

function applyOperation(
  op: Algebra.Operation,
  w: StoreWriter,
  tally: UpdateTally,
  options: EngineUpdateOptions,
  documents: LoadedDocuments,
  bnodeScope: string,
): void {
  switch (op.type) {
    case 'deleteinsert':
      return deleteInsert(op as Algebra.DeleteInsert, w, tally, options, bnodeScope);
    case 'load':
      return load(op as Algebra.Load, w, tally, documents);
    case 'clear':
      return clear(op as Algebra.Clear, w, tally);
    case 'drop':
      return drop(op as Algebra.Drop, w, tally);
    case 'create':
      return create(op as Algebra.Create, w);
    case 'add':
    case 'move':
    case 'copy':
      return transfer(op.type, op as Algebra.Add, w, tally, options);
    default:
      throw new EvaluationError(`unsupported update operation ${op.type}`);
  }
}

// ---- DELETE / INSERT ----

function deleteInsert(op: Algebra.DeleteInsert, w: StoreWriter, tally: UpdateTally, options: EngineUpdateOptions, bnodeScope: string): void {
  const deletes: Quad[] = [];
  const inserts: Quad[] = [];
  const { rows, termOf } = op.where ? solutions(op.where, w, options) : EMPTY_SOLUTION_ONLY;
  for (let i = 0; i < rows.length; i++) {
    checkLimitsEvery(i, options);
    for (const p of op.delete ?? []) {
      const q = instantiate(p, rows[i], termOf, null);
      if (q) deletes.push(q);
    }
    for (const p of op.insert ?? []) {
      const q = instantiate(p, rows[i], termOf, `${bnodeScope}_${i}`);
      if (q) inserts.push(q);
    }
  }
  // Deletions come first, then insertions, both from the same solutions (SPARQL 1.1 Update 3.1.3).
  for (const q of deletes) {
    const ids = existingIds(q, w);
    if (ids && w.remove(ids[0], ids[1], ids[2], ids[3])) tally.deleted(ids[3]);
  }
  for (const q of inserts) {
    const g = graphId(q.graph, w);
    if (w.add(w.intern(q.subject), w.intern(q.predicate), w.intern(q.object), g)) tally.inserted(g);
  }
}

/**
 * The solutions of INSERT DATA / DELETE DATA, and of a template over an empty WHERE (which the
 * algebra leaves out): the one empty solution. Ground quads come out as they are (blank nodes of
 * INSERT DATA made new), and a template's triples with variables, unbound here, are left out.
 */
const EMPTY_SOLUTION_ONLY = {
  rows: [new Map<string, number>()],
  termOf: (id: number): Term => {
    throw new EvaluationError(`no solution binds the term ${id}`);
  },
};

/** The WHERE clause's solutions, as maps from variable name to term. */
function solutions(where: Algebra.Operation, w: StoreWriter, options: EngineUpdateOptions) {
  let root = where;
  let clauses: DatasetClauses | undefined;
  if (root.type === 'from') {
    clauses = root as Algebra.From;
    root = (root as Algebra.From).input;
  }
  const dataset = resolveDataset(w, clauses, options.usingGraphUris, options.usingNamedGraphUris, options.unionDefaultGraph);
  const ctx = new ExecContext(w, dataset, options, options.baseIri);
  const allocator = new SlotAllocator();
  const scope = new Scope(allocator);
  const op = new Planner(ctx).plan(root, scope);
  ctx.width = allocator.width;
  // All solutions are computed before any change: the WHERE clause sees the store as it was.
  const buffer = new RowBuffer(ctx.width);
  for (const batch of op.execute([unitBatch(ctx.width)], ctx)) buffer.pushBatch(batch, ctx);
  const names = allocator.names;
  const rows: Map<string, number>[] = [];
  for (let r = 0; r < buffer.length; r++) {
    checkLimitsEvery(r, options);
    const row = new Map<string, number>();
    names.forEach((name, slot) => {
      const id = buffer.data[r * ctx.width + slot];
      if (id !== 0 && !row.has(name)) row.set(name, id);
    });
    rows.push(row);
  }
  return { rows, termOf: (id: number) => ctx.termOf(id) };
}

function instantiate(p: Algebra.Pattern, row: Map<string, number>, termOf: (id: number) => Term, bnodeScope: string | null): Quad | null {
  const resolve = (t: Term): Term | undefined => {
    if (t.termType === 'Variable') {
      const id = row.get(t.value);
      return id === undefined ? undefined : termOf(id);
    }
    if (t.termType === 'BlankNode' && bnodeScope !== null) return blankNode(`${bnodeScope}_${t.value}`);
    if (t.termType === 'Quad') return instantiateTripleTerm(t, resolve);
    return t;
  };
  const s = resolve(p.subject);
  const pr = resolve(p.predicate);
  const o = resolve(p.object);
  const g = p.graph.termType === 'DefaultGraph' ? p.graph : resolve(p.graph);
  if (!s || !pr || !o || !g || !validTriple(s, pr, o)) return null;
  if (g.termType !== 'DefaultGraph' && g.termType !== 'NamedNode') return null;
  return { subject: s, predicate: pr, object: o, graph: g } as Quad;
}

function freshBlankNodes(q: Quad, scope: string, i: number): Quad {
  const fresh = (t: Term) => (t.termType === 'BlankNode' ? blankNode(`${scope}${i}_${t.value}`) : t);
  return { subject: fresh(q.subject), predicate: q.predicate, object: fresh(q.object), graph: q.graph } as Quad;
}

function graphId(g: Term, w: StoreWriter): TermId {
  return g.termType === 'DefaultGraph' ? DEFAULT_GRAPH_ID : w.intern(g);
}

/** IDs of a quad's terms when the store holds them all (else it cannot hold the quad). */
function existingIds(q: Quad, w: StoreWriter): [TermId, TermId, TermId, TermId] | null {
  const s = w.idOf(q.subject);
  const p = w.idOf(q.predicate);
  const o = w.idOf(q.object);
  const g = q.graph.termType === 'DefaultGraph' ? DEFAULT_GRAPH_ID : w.idOf(q.graph);
  if (s === undefined || p === undefined || o === undefined || g === undefined) return null;
  return [s, p, o, g];
}

// ---- graph management ----

function load(op: Algebra.Load, w: StoreWriter, tally: UpdateTally, documents: LoadedDocuments): void {
  const document = documents.get(op);
  if (document === undefined || document instanceof Error) {
    if (op.silent) return;
    throw document instanceof Error ? document : new EvaluationError(`LOAD <${op.source.value}> failed`);
  }
  const target = op.destination ? w.intern(op.destination) : DEFAULT_GRAPH_ID;
  if (op.destination) w.createGraph(target);
  const scope = newBlankNodeScope('l');
  for (const q of document) {
    const fresh = freshBlankNodes(q, scope, 0);
    // A triple document goes into the target graph; a quad document keeps its named graphs.
    const g = q.graph.termType === 'DefaultGraph' ? target : w.intern(q.graph);
    if (w.add(w.intern(fresh.subject), w.intern(fresh.predicate), w.intern(fresh.object), g)) tally.inserted(g);
  }
}

type GraphTarget = 'DEFAULT' | 'NAMED' | 'ALL' | Term;

/** The graphs an operation addresses; a named graph that does not exist fails unless SILENT. */
function targetGraphs(target: GraphTarget, w: StoreWriter, silent: boolean | undefined, verb: string): TermId[] {
  if (target === 'DEFAULT') return [DEFAULT_GRAPH_ID];
  if (target === 'NAMED') return w.namedGraphs();
  if (target === 'ALL') return [DEFAULT_GRAPH_ID, ...w.namedGraphs()];
  const id = w.idOf(target);
  if (id === undefined || !w.hasNamedGraph(id)) {
    if (silent) return [];
    throw new EvaluationError(`${verb}: the graph <${target.value}> does not exist`);
  }
  return [id];
}

function clear(op: Algebra.Clear, w: StoreWriter, tally: UpdateTally): void {
  for (const g of targetGraphs(op.source, w, op.silent, 'CLEAR')) tally.deleted(g, w.clearGraph(g));
}

function drop(op: Algebra.Drop, w: StoreWriter, tally: UpdateTally): void {
  for (const g of targetGraphs(op.source, w, op.silent, 'DROP')) dropOrClear(g, w, tally);
}

/** Drops a named graph, clears the default graph (which always exists); counts the quads removed. */
function dropOrClear(g: TermId, w: StoreWriter, tally: UpdateTally): void {
  if (g === DEFAULT_GRAPH_ID) {
    tally.deleted(g, w.clearGraph(g));
    return;
  }
  tally.deleted(g, w.count(0, 0, 0, g));
  w.dropGraph(g);
}

function create(op: Algebra.Create, w: StoreWriter): void {
  const id = w.intern(op.source);
  if (!w.createGraph(id) && !op.silent) throw new EvaluationError(`CREATE: the graph <${op.source.value}> already exists`);
}

/** ADD, MOVE and COPY (SPARQL 1.1 Update 3.2.3 to 3.2.5). */
function transfer(kind: 'add' | 'move' | 'copy', op: Algebra.Add, w: StoreWriter, tally: UpdateTally, options: EngineUpdateOptions): void {
  const source = op.source === 'DEFAULT' ? DEFAULT_GRAPH_ID : w.idOf(op.source);
  const sourceExists = source === DEFAULT_GRAPH_ID || (source !== undefined && w.hasNamedGraph(source));
  if (!sourceExists) {
    if (op.silent) return;
    throw new EvaluationError(`${kind.toUpperCase()}: the graph <${(op.source as Term).value}> does not exist`);
  }
  const destination = op.destination === 'DEFAULT' ? DEFAULT_GRAPH_ID : w.intern(op.destination);
  if (source === destination) return;
  const quads: [TermId, TermId, TermId][] = [];
  for (const q of w.scan(0, 0, 0, source!)) {
    checkLimitsEvery(quads.length, options);
    quads.push([q[0], q[1], q[2]]);
  }
  if (kind !== 'add') tally.deleted(destination, w.clearGraph(destination));
  if (destination !== DEFAULT_GRAPH_ID) w.createGraph(destination);
  for (const [s, p, o] of quads) if (w.add(s, p, o, destination)) tally.inserted(destination);
  if (kind === 'move') dropOrClear(source!, w, tally);
}
