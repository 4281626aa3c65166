/**
 * Compact transfer of result rows between threads. Structured-cloning an RDF/JS term costs an
 * object graph per cell; instead each message carries the keys of the terms it introduces (once
 * per query, via a table both sides grow in step) and a flat Uint32Array of table indexes, whose
 * buffer is transferred rather than copied. Index 0 stands for "unbound".
 */
import { termFromKey, termKey, factory } from '../rdf/index.js';
import type { Quad, Term } from '../rdf/index.js';
import type { SolutionRow } from './sparql-service.js';

export interface EncodedBatch {
  /** Both sides forget their table before this batch (keeps memory bounded on huge results). */
  reset: boolean;
  /** Keys of terms first used in this batch; they take the next table indexes, in order. */
  newTerms: string[];
  /** Cells per row. */
  width: number;
  /** rows × width table indexes, row after row; 0 = unbound. */
  cells: Uint32Array;
  /** Needed on its own for rows of no variables (SELECT * over an empty pattern). */
  rowCount: number;
}

/** Rows the cells have room for at first. */
const FIRST_ROWS = 32;

/**
 * More distinct terms than this and the table starts over, so that neither side grows forever. Each
 * side holds about 150 bytes a term (its key, its object, a map entry), for as long as the query
 * streams: 50,000 terms are some 8 MB a side, which the process memory budget reserves for every
 * running query (worker-heap.ts); a term is sent again only when it recurs after a reset.
 */
const MAX_TABLE_SIZE = 50_000;

/**
 * Builds one message at a time: rows are encoded as they are added (so nothing holds on to the
 * engine's row arrays), and `take()` hands over the finished batch and starts the next.
 */
export class TermTableEncoder {
  private readonly indexes = new Map<string, number>();
  /**
   * Table indexes by term object: the engine hands out one object per stored term, so a term that
   * recurs in a result (a product's properties on each of its rows) is found without building and
   * hashing its key again. Equal terms in distinct objects still share one index, through `indexes`.
   */
  private readonly byObject = new Map<Term, number>();
  private resetPending = false;
  private newTerms: string[] = [];
  private cells: Uint32Array;
  private length = 0;

  constructor(
    readonly width: number,
    capacityRows = 1024,
  ) {
    // Most answers are a few rows: start small, grow by doubling up to what a message holds.
    this.cells = new Uint32Array(Math.max(1, Math.min(capacityRows, FIRST_ROWS) * width));
  }

  get rowCount(): number {
    return this.width === 0 ? this.length : this.length / this.width;
  }

  addRow(row: SolutionRow): void {
    if (this.width === 0) {
      this.length++;
      return;
    }
    this.ensureRoom();
    for (let c = 0; c < this.width; c++) this.put(row[c]);
  }

  /** Quads travel as rows of subject, predicate, object, graph (width 4). */
  addQuad(quad: Quad): void {
    this.ensureRoom();
    this.put(quad.subject);
    this.put(quad.predicate);
    this.put(quad.object);
    this.put(quad.graph);
  }

  take(): EncodedBatch {
    const batch: EncodedBatch = {
      reset: this.resetPending,
      newTerms: this.newTerms,
      width: this.width,
      cells: this.width === 0 ? new Uint32Array(0) : this.cells.slice(0, this.length),
      rowCount: this.rowCount,
    };
    this.resetPending = false;
    this.newTerms = [];
    this.length = 0;
    // Start over between batches, never inside one: a batch's cells must stay valid.
    if (this.indexes.size > MAX_TABLE_SIZE) {
      this.indexes.clear();
      this.byObject.clear();
      this.resetPending = true;
    } else if (this.byObject.size > MAX_TABLE_SIZE) {
      // Computed terms are new objects on every row: only the key table bounds their indexes.
      this.byObject.clear();
    }
    return batch;
  }

  private ensureRoom(): void {
    if (this.length + this.width <= this.cells.length) return;
    const grown = new Uint32Array(this.cells.length * 2);
    grown.set(this.cells);
    this.cells = grown;
  }

  private put(term: Term | undefined): void {
    this.cells[this.length++] = term === undefined ? 0 : this.indexOfTerm(term);
  }

  private indexOfTerm(term: Term): number {
    let index = this.byObject.get(term);
    if (index === undefined) {
      index = this.indexOf(termKey(term));
      this.byObject.set(term, index);
    }
    return index;
  }

  private indexOf(key: string): number {
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = this.indexes.size + 1;
      this.indexes.set(key, index);
      this.newTerms.push(key);
    }
    return index;
  }
}

export class TermTableDecoder {
  /** Slot 0 is "unbound"; terms are built once per table entry and shared by every cell. */
  private terms: (Term | undefined)[] = [undefined];

  decodeRows(batch: EncodedBatch): SolutionRow[] {
    this.learn(batch);
    const rows: SolutionRow[] = [];
    const { cells, width } = batch;
    for (let r = 0, at = 0; r < batch.rowCount; r++, at += width) {
      const row: SolutionRow = new Array(width);
      for (let c = 0; c < width; c++) row[c] = this.terms[cells[at + c]];
      rows.push(row);
    }
    return rows;
  }

  decodeQuads(batch: EncodedBatch): Quad[] {
    this.learn(batch);
    const quads: Quad[] = [];
    const { cells } = batch;
    for (let at = 0; at < cells.length; at += 4) {
      const t = this.terms;
      quads.push(
        factory.quad(
          t[cells[at]] as Quad['subject'],
          t[cells[at + 1]] as Quad['predicate'],
          t[cells[at + 2]] as Quad['object'],
          t[cells[at + 3]] as Quad['graph'],
        ),
      );
    }
    return quads;
  }

  private learn(batch: EncodedBatch): void {
    if (batch.reset) this.terms = [undefined];
    for (const key of batch.newTerms) this.terms.push(termFromKey(key));
  }
}
