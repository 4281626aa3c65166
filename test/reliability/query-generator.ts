/**
 * Random SPARQL SELECT queries over a data profile, as a structure that can be shrunk part by part
 * (to minimize a query two engines disagree on) and rendered to text.
 *
 * Basic graph patterns are random walks from a real subject, so that most queries have answers:
 * each new pattern hangs off a variable whose sample value (the term the walk went through) has
 * that predicate.
 */
import type { Random } from './prng.js';
import { datatypeOf, isIri, type DataProfile, type TermText } from './data-profile.js';

export interface Pattern {
  s: string;
  p: string;
  o: string;
}

/** A pattern the solutions must not (or must) match: FILTER NOT EXISTS, FILTER EXISTS, MINUS, or OPTIONAL with !BOUND. */
export interface Negation {
  kind: 'not-exists' | 'exists' | 'minus' | 'unbound';
  pattern: Pattern;
  /** The variable only the pattern binds (that !BOUND tests). */
  own: string;
}

export interface GeneratedQuery {
  patterns: Pattern[];
  optional?: Pattern;
  negation?: Negation;
  union?: Pattern[];
  filters: string[];
  projection: string[] | '*';
  distinct: boolean;
  orderLimit?: { keys: string[]; descending: boolean[]; limit: number };
  groupCount?: { key: string; counted: string | '*' };
}

const NUMERIC = /#(integer|decimal|double|float|int|long|short|byte|nonNegativeInteger|positiveInteger)$/;
const COMPARISONS = ['=', '!=', '<', '>', '<=', '>='];

class Walk {
  readonly patterns: Pattern[] = [];
  /** The value each variable took along the walk. */
  readonly values = new Map<string, TermText>();
  private next = 0;

  constructor(readonly prefix: string) {}

  variable(value: TermText): string {
    const name = `?${this.prefix}${this.next++}`;
    this.values.set(name, value);
    return name;
  }
}

export class QueryGenerator {
  constructor(
    private readonly data: DataProfile,
    private readonly random: Random,
  ) {}

  generate(): GeneratedQuery {
    const r = this.random;
    const walk = this.walk('v', r.int(1, 4));
    const query: GeneratedQuery = { patterns: walk.patterns, filters: [], projection: '*', distinct: false };
    const variables = () => [...walk.values.keys()];
    if (r.chance(0.3)) query.optional = this.optionalPattern(walk);
    if (r.chance(0.2)) {
      const other = this.walk('u', r.int(1, 2), walk.values.get('?v0'));
      query.union = other.patterns.map((p) => renameStart(p, '?u0', '?v0'));
      for (const [name, value] of other.values) walk.values.set(name === '?u0' ? '?v0' : name, value);
    }
    if (r.chance(0.25)) query.negation = this.negation(walk);
    for (let n = r.chance(0.4) ? r.int(1, 2) : 0; n > 0; n--) {
      const filter = this.filter(walk);
      if (filter) query.filters.push(filter);
    }
    const all = variables();
    if (r.chance(0.2) && all.length >= 1) {
      const key = r.pick(all);
      query.groupCount = { key, counted: r.chance(0.5) ? '*' : r.pick(all) };
      if (r.chance(0.4)) query.orderLimit = { keys: [key, '?n'], descending: [r.chance(0.5), r.chance(0.5)], limit: r.int(1, 10) };
      return query;
    }
    const projected = all.filter(() => r.chance(0.6));
    query.projection = r.chance(0.2) || projected.length === 0 ? '*' : projected;
    // SELECT * takes the variables in scope, which a negated pattern's own are not; Oxigraph lists
    // them too (unbound), so the walk's are named.
    if (query.negation && query.projection === '*' && all.length > 0) query.projection = all;
    query.distinct = r.chance(0.3);
    // A pattern of constants only has no variable to order by (and LIMIT without an order is not
    // deterministic, so the engines could rightly differ).
    if (r.chance(0.3) && all.length > 0) {
      const keys = query.projection === '*' ? all : query.projection;
      query.orderLimit = { keys, descending: keys.map(() => r.chance(0.3)), limit: r.int(1, 20) };
    }
    return query;
  }

  /** A random walk of up to `length` patterns from a real subject (or from `start`'s value). */
  private walk(prefix: string, length: number, start?: TermText): Walk {
    const r = this.random;
    const walk = new Walk(prefix);
    let subject = start && this.data.bySubject.has(start) ? start : r.pick(this.data.subjects);
    const first = walk.variable(subject);
    const frontier = [first];
    for (let i = 0; i < length; i++) {
      const from = r.pick(frontier);
      subject = walk.values.get(from)!;
      const triples = this.data.bySubject.get(subject);
      if (!triples) break;
      const triple = r.pick(triples);
      const asConstant = r.chance(0.15);
      const object = asConstant ? triple.o : walk.variable(triple.o);
      walk.patterns.push({ s: from, p: triple.p, o: object });
      if (!asConstant && isIri(triple.o) && this.data.bySubject.has(triple.o)) frontier.push(object);
    }
    if (r.chance(0.1) && walk.patterns.length > 1) {
      // Pin the start: a selective pattern that the optimizer should put first.
      const value = walk.values.get(first)!;
      for (const p of walk.patterns) if (p.s === first) p.s = value;
      walk.values.delete(first);
    }
    return walk;
  }

  private optionalPattern(walk: Walk): Pattern | undefined {
    const r = this.random;
    const candidates = [...walk.values].filter(([, value]) => isIri(value));
    if (candidates.length === 0) return undefined;
    const [variable, value] = r.pick(candidates);
    // Half the time a predicate of the value itself (matches), else any predicate (may not).
    const own = this.data.bySubject.get(value);
    const p = own && r.chance(0.5) ? r.pick(own).p : r.pick(this.data.predicates);
    const o = walk.variable(this.data.objectsOf.get(p)?.[0] ?? '""');
    return { s: variable, p, o };
  }

  /**
   * A pattern off a variable of the walk, half the time with a predicate its value has (so that
   * some solutions match and some do not), its object a variable of its own or, sometimes, another
   * variable of the walk (two shared variables).
   */
  private negation(walk: Walk): Negation | undefined {
    const r = this.random;
    const candidates = [...walk.values].filter(([, value]) => isIri(value));
    if (candidates.length === 0) return undefined;
    const [variable, value] = r.pick(candidates);
    const own = this.data.bySubject.get(value);
    const p = own && r.chance(0.5) ? r.pick(own).p : r.pick(this.data.predicates);
    const kind = r.pick(['not-exists', 'exists', 'minus', 'unbound'] as const);
    const others = [...walk.values.keys()].filter((v) => v !== variable);
    const o = kind !== 'unbound' && others.length > 0 && r.chance(0.3) ? r.pick(others) : '?n0';
    return { kind, pattern: { s: variable, p, o }, own: '?n0' };
  }

  private filter(walk: Walk): string | undefined {
    const r = this.random;
    if (walk.values.size === 0) return undefined;
    const [variable, value] = r.pick([...walk.values]);
    const datatype = datatypeOf(value);
    if (datatype === undefined) {
      const others = [...walk.values].filter(([v, val]) => v !== variable && isIri(val)).map(([v]) => v);
      if (others.length > 0 && r.chance(0.5)) return `${variable} ${r.pick(['=', '!='])} ${r.pick(others)}`;
      return r.chance(0.5) ? `isIRI(${variable})` : `${variable} ${r.pick(['=', '!='])} ${value}`;
    }
    const samples = [...walk.values.values(), value].filter((v) => datatypeOf(v) === datatype);
    const constant = r.pick(samples);
    if (NUMERIC.test(datatype) || datatype.endsWith('#date') || datatype.endsWith('#dateTime')) {
      return `${variable} ${r.pick(COMPARISONS)} ${constant}`;
    }
    if (datatype.endsWith('#string')) {
      return r.pick([
        `${variable} ${r.pick(COMPARISONS)} ${constant}`,
        `STRLEN(${variable}) > ${r.int(1, 30)}`,
        `CONTAINS(${variable}, "${r.pick(['a', 'e', 'in', 'the'])}")`,
      ]);
    }
    return r.pick([`lang(${variable}) = "en"`, `isLiteral(${variable})`]);
  }
}

function renameStart(p: Pattern, from: string, to: string): Pattern {
  return { s: p.s === from ? to : p.s, p: p.p, o: p.o === from ? to : p.o };
}

function renderPatterns(patterns: Pattern[]): string {
  return patterns.map((p) => `${p.s} ${p.p} ${p.o} .`).join(' ');
}

export function render(q: GeneratedQuery): string {
  let where = renderPatterns(q.patterns);
  if (q.union) where = `{ ${where} } UNION { ${renderPatterns(q.union)} }`;
  if (q.optional) where += ` OPTIONAL { ${renderPatterns([q.optional])} }`;
  if (q.negation) where += renderNegation(q.negation);
  for (const f of q.filters) where += ` FILTER(${f})`;
  let select: string;
  let tail = '';
  if (q.groupCount) {
    const counted = q.groupCount.counted === '*' ? '*' : q.groupCount.counted;
    select = `SELECT ${q.groupCount.key} (COUNT(${counted}) AS ?n)`;
    tail = ` GROUP BY ${q.groupCount.key}`;
  } else {
    select = `SELECT ${q.distinct ? 'DISTINCT ' : ''}${q.projection === '*' ? '*' : q.projection.join(' ')}`;
  }
  if (q.orderLimit) {
    const keys = q.orderLimit.keys.map((k, i) => (q.orderLimit!.descending[i] ? `DESC(${k})` : `ASC(${k})`));
    tail += ` ORDER BY ${keys.join(' ')} LIMIT ${q.orderLimit.limit}`;
  }
  return `${select} WHERE { ${where} }${tail}`;
}

function renderNegation(n: Negation): string {
  const pattern = renderPatterns([n.pattern]);
  switch (n.kind) {
    case 'not-exists':
      return ` FILTER NOT EXISTS { ${pattern} }`;
    case 'exists':
      return ` FILTER EXISTS { ${pattern} }`;
    case 'minus':
      return ` MINUS { ${pattern} }`;
    case 'unbound':
      return ` OPTIONAL { ${pattern} } FILTER(!BOUND(${n.own}))`;
  }
}

/** Smaller variants of a query, one part removed in each, for minimizing a disagreement. */
export function shrinkings(q: GeneratedQuery): GeneratedQuery[] {
  const out: GeneratedQuery[] = [];
  if (q.orderLimit) out.push({ ...q, orderLimit: undefined });
  if (q.groupCount) out.push({ ...q, groupCount: undefined, orderLimit: undefined });
  if (q.distinct) out.push({ ...q, distinct: false });
  if (q.union) out.push({ ...q, union: undefined });
  if (q.optional) out.push({ ...q, optional: undefined });
  if (q.negation) out.push({ ...q, negation: undefined });
  q.filters.forEach((_, i) => out.push({ ...q, filters: q.filters.filter((_, j) => j !== i) }));
  if (q.patterns.length > 1) q.patterns.forEach((_, i) => out.push({ ...q, patterns: q.patterns.filter((_, j) => j !== i) }));
  if (q.projection !== '*' && q.projection.length > 1) {
    q.projection.forEach((_, i) => {
      const projection = (q.projection as string[]).filter((_, j) => j !== i);
      const orderLimit = q.orderLimit ? { ...q.orderLimit, keys: projection, descending: projection.map(() => false) } : undefined;
      out.push({ ...q, projection, orderLimit });
    });
  }
  return out;
}
