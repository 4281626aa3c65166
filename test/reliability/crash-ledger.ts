/**
 * What the crash harness knows about the store: which requests the server acknowledged and which
 * were in flight when it was killed (those may or may not have committed, but only as a whole).
 * After each restart it checks the store against that knowledge, then narrows every "maybe" down
 * to what it found.
 */

const NS = 'urn:quiver:crash:';
export const P_AT = `${NS}at`;
export const P_MOVED_BY = `${NS}movedBy`;
/** Triples per insert request: FIELDS in the default graph and one in the client's named graph. */
const FIELDS = 5;

export type Outcome = 'acknowledged' | 'unknown';

interface InsertRecord {
  client: number;
  /** Known present (true), known absent (false) or either (undefined). */
  present: boolean | undefined;
}

export interface Totals {
  acknowledged: number;
  verified: number;
  lost: number;
  partial: number;
  /** Acknowledged, then overwritten by a later request on the same resource before the next check. */
  superseded: number;
}

/** A triple as found in the store: subject, predicate, object value, graph ('' for the default). */
export interface FoundTriple {
  s: string;
  p: string;
  o: string;
  g: string;
}

export function requestSubject(id: string): string {
  return `${NS}req/${id}`;
}

export function clientGraph(client: number): string {
  return `${NS}graph/${client}`;
}

export function itemIri(client: number, item: number): string {
  return `${NS}item/${client}/${item}`;
}

function locationIri(moveId: string): string {
  return `${NS}loc/${moveId}`;
}

function insertTriples(id: string, client: number): string {
  const s = `<${requestSubject(id)}>`;
  const fields = Array.from({ length: FIELDS }, (_, k) => `${s} <${NS}field${k}> "${id}/${k}" .`).join('\n');
  return `${fields}\nGRAPH <${clientGraph(client)}> { ${s} <${NS}client> "${client}" . }`;
}

export function insertUpdate(id: string, client: number): string {
  return `INSERT DATA {\n${insertTriples(id, client)}\n}`;
}

export function deleteUpdate(id: string, client: number): string {
  return `DELETE DATA {\n${insertTriples(id, client)}\n}`;
}

/** Moves an item: its location and the id of the move that put it there change together. */
export function moveUpdate(moveId: string, item: string): string {
  return `DELETE { <${item}> <${P_AT}> ?at . <${item}> <${P_MOVED_BY}> ?by }
INSERT { <${item}> <${P_AT}> <${locationIri(moveId)}> . <${item}> <${P_MOVED_BY}> "${moveId}" }
WHERE { OPTIONAL { <${item}> <${P_AT}> ?at } OPTIONAL { <${item}> <${P_MOVED_BY}> ?by } }`;
}

export class CrashLedger {
  private readonly inserts = new Map<string, InsertRecord>();
  /** Per item: the move ids it may show now (null: never moved). */
  private readonly items = new Map<string, Set<string | null>>();
  /** Acknowledged requests not checked yet: each is counted verified or lost at the next check. */
  private pendingAcks: { kind: 'insert' | 'delete' | 'move'; key: string; expect: string | boolean }[] = [];
  readonly totals: Totals = { acknowledged: 0, verified: 0, lost: 0, partial: 0, superseded: 0 };
  readonly problems: string[] = [];

  /** Ids of inserts known to be present, that a client may delete. */
  deletable(client: number): string[] {
    return [...this.inserts].filter(([, r]) => r.client === client && r.present === true).map(([id]) => id);
  }

  recordInsert(id: string, client: number, outcome: Outcome): void {
    this.inserts.set(id, { client, present: outcome === 'acknowledged' ? true : undefined });
    if (outcome === 'acknowledged') this.acknowledge('insert', id, true);
  }

  recordDelete(id: string, outcome: Outcome): void {
    const record = this.inserts.get(id)!;
    record.present = outcome === 'acknowledged' ? false : undefined;
    if (outcome === 'acknowledged') this.acknowledge('delete', id, false);
    else this.supersede(id);
  }

  recordMove(moveId: string, item: string, outcome: Outcome): void {
    const allowed = this.items.get(item) ?? new Set<string | null>([null]);
    if (outcome === 'acknowledged') {
      this.items.set(item, new Set([moveId]));
      this.acknowledge('move', item, moveId);
    } else {
      allowed.add(moveId);
      this.items.set(item, allowed);
      this.supersede(item);
    }
  }

  private acknowledge(kind: 'insert' | 'delete' | 'move', key: string, expect: string | boolean): void {
    this.totals.acknowledged++;
    this.supersede(key);
    this.pendingAcks.push({ kind, key, expect });
  }

  /** A later request on the same key makes an earlier acknowledgement uncheckable. */
  private supersede(key: string): void {
    const kept = this.pendingAcks.filter((a) => a.key !== key);
    this.totals.superseded += this.pendingAcks.length - kept.length;
    this.pendingAcks = kept;
  }

  /** Checks the store's content against the ledger; returns the problems found in this check. */
  check(found: FoundTriple[]): string[] {
    const before = this.problems.length;
    const bySubject = groupBySubject(found);
    const insertPresent = new Map<string, boolean | undefined>();
    for (const [id, record] of this.inserts) {
      const triples = bySubject.get(requestSubject(id)) ?? [];
      const count = triples.length;
      if (count !== 0 && count !== FIELDS + 1) {
        this.totals.partial++;
        this.problems.push(`request ${id}: ${count} of ${FIELDS + 1} triples present`);
      }
      // Half a request is neither present nor absent: an acknowledgement of it counts as lost.
      const present = count === FIELDS + 1 ? true : count === 0 ? false : undefined;
      insertPresent.set(id, present);
      if (record.present !== undefined && present !== undefined && record.present !== present) {
        this.problems.push(`request ${id}: expected ${record.present ? 'present' : 'absent'}, found ${present ? 'present' : 'absent'}`);
      }
      record.present = present;
    }
    const itemState = new Map<string, string | null>();
    for (const [item, allowed] of this.items) {
      const triples = bySubject.get(item) ?? [];
      const at = triples.filter((t) => t.p === P_AT).map((t) => t.o);
      const by = triples.filter((t) => t.p === P_MOVED_BY).map((t) => t.o);
      if (at.length > 1 || by.length > 1 || at.length !== by.length || (at.length === 1 && at[0] !== locationIri(by[0]))) {
        this.totals.partial++;
        this.problems.push(`item ${item}: half a move (locations ${JSON.stringify(at)}, moved by ${JSON.stringify(by)})`);
        continue;
      }
      const state = by.length === 1 ? by[0] : null;
      itemState.set(item, state);
      if (!allowed.has(state)) this.problems.push(`item ${item}: shows move ${state}, expected one of ${JSON.stringify([...allowed])}`);
      this.items.set(item, new Set([state]));
    }
    for (const ack of this.pendingAcks) {
      const actual = ack.kind === 'move' ? itemState.get(ack.key) : insertPresent.get(ack.key);
      if (actual === ack.expect) this.totals.verified++;
      else {
        this.totals.lost++;
        this.problems.push(`acknowledged ${ack.kind} ${ack.key} lost (expected ${String(ack.expect)}, found ${String(actual)})`);
      }
    }
    this.pendingAcks = [];
    return this.problems.slice(before);
  }
}

function groupBySubject(found: FoundTriple[]): Map<string, FoundTriple[]> {
  const groups = new Map<string, FoundTriple[]>();
  for (const t of found) {
    const list = groups.get(t.s);
    if (list) list.push(t);
    else groups.set(t.s, [t]);
  }
  return groups;
}
