/**
 * From algebra to a tree of physical operators. The central rule: an operator runs as a pipeline
 * stage (extending incoming solutions, so bindings flow into its index look-ups) unless incoming
 * bindings could change its meaning — a variable it mentions but does not always bind (FILTER
 * scope, OPTIONAL, BIND), or a solution modifier below the root. Those are evaluated on their own
 * and joined (IsolatedJoin), which is always correct.
 */
import type { Algebra } from '../../sparql/index.js';
import type { Term } from '../../rdf/index.js';
import { EvaluationError } from '../../errors.js';
import type { ExecContext } from '../exec-context.js';
import { compileExpression, type CompiledExpression, type ConstantRef, type ExpressionScope } from '../expression/compile-expression.js';
import { Operator, union } from '../operators/operator.js';
import { PatternScan, type PatternTerm } from '../operators/pattern-scan.js';
import { Identity, Sequence } from '../operators/sequence.js';
import { IsolatedJoin } from '../operators/isolated-join.js';
import { Filter, FilterStep } from '../operators/filter.js';
import { Extend } from '../operators/extend.js';
import { Values } from '../operators/inline-data.js';
import { Union } from '../operators/union.js';
import { LeftJoin } from '../operators/left-join.js';
import { AntiJoin, SemiJoin, existsProbe, optionalProbe } from '../operators/anti-join.js';
import { existenceOf, existenceVariables, independentOfSolution, unboundTestOf, type LeftJoinUnderUnboundTest } from './existence-joins.js';
import { Minus } from '../operators/minus.js';
import { GraphEnumerate, GraphGuard } from '../operators/graph-enumerate.js';
import { Group, type AggregateSpec, type AggregatorName } from '../operators/group.js';
import { Distinct, OrderBy, Project, Slice, type SortKey } from '../operators/modifiers.js';
import { PathScan, type PathExpr } from '../operators/property-path.js';
import { DEFAULT_GRAPH_REF, type GraphRef } from '../operators/graph-ref.js';
import { Scope } from './scope.js';
import { isSolutionWildcard, type SolutionWildcard } from '../../sparql/index.js';
import { keepTextualOrder, orderPatterns } from './bgp-order.js';
import { expressionText } from './expression-text.js';
import { pushDownFilter, type BgpWithFilters } from './filter-pushdown.js';
import { objectBoundsOf } from './object-bounds.js';
import { PatternCounts } from './pattern-counts.js';
import { variableEqualities, type SlotEquality } from './variable-equalities.js';
import { withCountedRows } from './counted-rows-rule.js';
import { EqualityBind } from '../operators/equality-bind.js';
import { knownIriId, rememberIriId } from './iri-ids.js';
import { QUERY_LOCAL_ID_BASE } from '../../store/index.js';

interface Env {
  scope: Scope;
  /** Slots that incoming solutions may have bound. */
  inputVars: ReadonlySet<number>;
  graph: GraphRef;
  /** The operator receives exactly the single empty solution (modifiers may then be pipelined). */
  atRoot: boolean;
  /** Slots an isolated evaluation must still take from the incoming solution (GRAPH ?g). */
  params: number[];
  /** Inside EXISTS: the current solution is substituted into the pattern (SPARQL 1.1 section 18.6). */
  substitute?: boolean;
}

interface Planned {
  op: Operator;
  /** Every slot the pattern mentions, expressions included. */
  mentioned: Set<number>;
}

/**
 * How the planner plans a template's algebra for one query of the template (prepared-plans.ts): the
 * template's placeholders get that query's constants, and every place a constant went is recorded,
 * so that later queries of the template can put theirs there instead of planning again.
 */
export interface PlanParameters {
  /** The placeholder number of a template term, or undefined for a constant of the template itself. */
  placeholder(term: Term): number | undefined;
  /** The pattern position for placeholder n, holding this query's constant's ID. */
  patternTerm(n: number, label: string): PatternTerm;
  /** The holder of placeholder n in an expression, holding this query's constant. */
  expressionConstant(n: number): ConstantRef;
  /** A basic graph pattern as ordered: its scans in the query's order, what was bound before, its filters' slots, the order chosen. */
  joinOrdered(problem: JoinOrderProblem): void;
}

export interface JoinOrderProblem {
  scans: PatternScan[];
  bound: ReadonlySet<number>;
  filters: ReadonlySet<number>[];
  /** The filters' equalities of two variables, which the join order treats as joins. */
  equalities: readonly SlotEquality[];
  /** Indexes into scans. */
  order: number[];
}

const MODIFIERS = new Set(['project', 'group', 'orderby', 'slice', 'distinct', 'reduced']);

export class Planner {
  /** Hooks for SERVICE: planned by the caller (it fetches results before evaluation). */
  serviceHandler?: (op: Algebra.Service, scope: Scope, graph: GraphRef) => Planned;
  /** ORDER BY nodes of which only the first so many solutions are wanted (a LIMIT above them). */
  private readonly sortLimits = new WeakMap<Algebra.Operation, number>();
  /** Store IDs of the IRIs planned so far: a template repeats its constants (BSBM Q2 names its product 15 times). */
  private readonly iriIds = new Map<string, number>();
  private readonly patternCounts: PatternCounts;
  /** Set when planning a template for one query of it (prepared-plans.ts). */
  parameters?: PlanParameters;
  /** The OPTIONALs planned as anti-joins: their FILTER(!BOUND(?x)) has nothing left to do. */
  private readonly optionalAntiJoins = new WeakSet<Algebra.Operation>();
  /** Whether a constant of the query got a query-local ID (the store does not hold it): such a plan is for this query only. */
  usedLocalConstant = false;

  /** optimize false: patterns in textual order, no push-downs, no strategy chosen from estimates. */
  constructor(
    readonly ctx: ExecContext,
    private readonly optimize = true,
  ) {
    this.patternCounts = new PatternCounts(ctx.reader);
  }

  plan(node: Algebra.Operation, scope: Scope): Operator {
    return this.compile(node, { scope, inputVars: new Set(), graph: DEFAULT_GRAPH_REF, atRoot: true, params: [] }).op;
  }

  /** Plans a child that incoming solutions flow into, isolating it where they would change its meaning. */
  private compileChild(node: Algebra.Operation, env: Env): Planned {
    if (MODIFIERS.has(node.type) && !env.atRoot) return this.isolate(node, env);
    const planned = this.compile(node, env);
    if (env.substitute) return planned;
    for (const slot of planned.mentioned) {
      if (env.inputVars.has(slot) && !planned.op.certain.has(slot) && !env.params.includes(slot)) {
        return this.isolate(node, env);
      }
    }
    return planned;
  }

  private isolate(node: Algebra.Operation, env: Env): Planned {
    const inner = this.compile(node, { ...env, inputVars: new Set(env.params), atRoot: true });
    const keys = [...inner.op.certain].filter((s) => env.inputVars.has(s) && !env.params.includes(s));
    return { op: new IsolatedJoin(inner.op, env.params, keys), mentioned: inner.mentioned };
  }

  private compile(node: Algebra.Operation, env: Env): Planned {
    switch (node.type) {
      case 'bgp':
        return this.bgp((node as BgpWithFilters).patterns, env, (node as BgpWithFilters).filters ?? []);
      case 'path':
        return this.path(node as Algebra.Path, env);
      case 'join':
        return this.join((node as Algebra.Join).input, env);
      case 'leftjoin':
        return this.leftJoin(node as Algebra.LeftJoin, env);
      case 'filter':
        return this.filter(node as Algebra.Filter, env);
      case 'union': {
        const branches = (node as Algebra.Union).input.map((b) => this.compileChild(b, env));
        return { op: new Union(branches.map((b) => b.op)), mentioned: union(...branches.map((b) => b.mentioned)) };
      }
      case 'minus': {
        const [a, b] = (node as Algebra.Minus).input;
        const left = this.compileChild(a, env);
        // The right side is evaluated on its own, within the same active graph (a parameter).
        const right = this.compile(b, { ...env, inputVars: new Set(env.params), atRoot: true });
        return { op: new Minus(left.op, right.op, env.params), mentioned: union(left.mentioned, right.mentioned) };
      }
      case 'extend':
        return this.extend(node as Algebra.Extend, env);
      case 'values':
        return this.values(node as Algebra.Values, env);
      case 'graph':
        return this.graph(node as Algebra.Graph, env);
      case 'project':
        return this.project(node as Algebra.Project, env);
      case 'group':
        return this.group(node as Algebra.Group, env);
      case 'orderby':
        return this.orderBy(node as Algebra.OrderBy, env);
      case 'distinct':
      case 'reduced': {
        const child = this.compile((node as Algebra.Distinct).input, env);
        const visible = [...child.op.maybe];
        return { op: new Distinct(child.op, visible, node.type === 'reduced'), mentioned: child.mentioned };
      }
      case 'slice': {
        const s = node as Algebra.Slice;
        const sorted = sortUnderSlice(s);
        if (sorted && s.length !== undefined && this.optimize) this.sortLimits.set(sorted, (s.start ?? 0) + s.length);
        const child = this.compile(s.input, env);
        return { op: new Slice(child.op, s.start ?? 0, s.length), mentioned: child.mentioned };
      }
      case 'service': {
        if (!this.serviceHandler) throw new EvaluationError('SERVICE is not available here');
        return this.serviceHandler(node as Algebra.Service, env.scope, env.graph);
      }
      case 'nop':
        return { op: new Identity(), mentioned: new Set() };
      case 'from':
        throw new EvaluationError('FROM is only allowed at the top of a query');
      default:
        throw new EvaluationError(`unsupported algebra operation ${node.type}`);
    }
  }

  // ---- patterns ----

  private term(t: Term, scope: Scope): PatternTerm {
    if (t.termType === 'Variable') return { kind: 'slot', slot: scope.slot(t.value), label: `?${t.value}` };
    // Blank nodes in query patterns act as variables that cannot be projected.
    if (t.termType === 'BlankNode') return { kind: 'slot', slot: scope.slot(`_:${t.value}`), label: `_:${t.value}` };
    const label = t.termType === 'NamedNode' ? `<${t.value}>` : JSON.stringify(t.value);
    const n = this.parameters?.placeholder(t);
    if (n !== undefined) return this.parameters!.patternTerm(n, label);
    return { kind: 'id', id: this.idOf(t), label };
  }

  /** The context's ID of a term; an IRI's is remembered, as the context gives it the same one every time. */
  private idOf(t: Term): number {
    const id = this.storeOrLocalId(t);
    if (id >= QUERY_LOCAL_ID_BASE) this.usedLocalConstant = true;
    return id;
  }

  private storeOrLocalId(t: Term): number {
    if (t.termType !== 'NamedNode') return this.ctx.idOf(t);
    let id = this.iriIds.get(t.value);
    if (id === undefined) {
      const version = this.patternCounts.contentVersion();
      id = version === undefined ? undefined : knownIriId(version, t.value);
      if (id === undefined) {
        id = this.ctx.idOf(t);
        if (version !== undefined) rememberIriId(version, t.value, id);
      }
      this.iriIds.set(t.value, id);
    }
    return id;
  }

  private graphRef(g: Term | undefined, env: Env): GraphRef {
    if (!g || g.termType === 'DefaultGraph') return env.graph;
    if (g.termType === 'Variable') return { kind: 'slot', slot: env.scope.slot(g.value) };
    return { kind: 'id', id: this.idOf(g), label: `<${g.value}>` };
  }

  /** A chain of pattern scans, with the filters pushed into it run as soon as their variables are bound. */
  private bgp(patterns: Algebra.Pattern[], env: Env, filterExpressions: Algebra.Expression[]): Planned {
    if (patterns.length === 0) return { op: new Identity(), mentioned: new Set() };
    const scans = patterns.map(
      (p) => new PatternScan(this.term(p.subject, env.scope), this.term(p.predicate, env.scope), this.term(p.object, env.scope), this.graphRef(p.graph, env)),
    );
    const filters = filterExpressions.map((e) => new FilterStep(this.expression(e, env), expressionText(e)));
    const filterSlots = filters.map((f) => f.condition.slots);
    const equalities: SlotEquality[] = this.ctx.fastPath('equalityBinds')
      ? variableEqualities(filterExpressions).map((e) => ({ a: env.scope.slot(e.a), b: env.scope.slot(e.b), sameTerm: e.sameTerm }))
      : [];
    const ordered = this.optimize
      ? orderPatterns(scans, env.inputVars, this.ctx, filterSlots, this.patternCounts, equalities)
      : keepTextualOrder(scans, env.inputVars, this.ctx, this.patternCounts);
    this.parameters?.joinOrdered({ scans, bound: new Set(env.inputVars), filters: filterSlots, equalities, order: ordered.map((scan) => scans.indexOf(scan)) });
    const steps = interleaveFilters(ordered, filters, env.params, equalities);
    if (this.optimize) this.attachObjectBounds(ordered, filterExpressions, env);
    const op = steps.length === 1 ? steps[0] : new Sequence(steps);
    op.estimate = steps[steps.length - 1].estimate;
    return { op, mentioned: union(...scans.map((s) => s.maybe), ...filterSlots) };
  }

  /**
   * Gives each scan the bounds its BGP's filters put on the object it binds, where the bounds read
   * only variables bound before it (see object-bounds.ts). The filters stay where they are.
   */
  private attachObjectBounds(scans: readonly PatternScan[], conjuncts: readonly Algebra.Expression[], env: Env): void {
    const bounds = objectBoundsOf(conjuncts);
    if (bounds.length === 0) return;
    const boundBefore = new Set<number>([...env.inputVars, ...env.params]);
    for (const scan of scans) {
      const object = scan.o;
      if (object.kind === 'slot' && scan.p.kind === 'id' && !boundBefore.has(object.slot)) {
        for (const bound of bounds) {
          if (env.scope.slot(bound.variable) !== object.slot) continue;
          const expression = this.expression(bound.bound, env);
          if (expression.subPlans.length > 0 || expression.usesBnode || ![...expression.slots].every((slot) => boundBefore.has(slot))) continue;
          scan.objectBounds.push({ upper: bound.upper, expression });
        }
      }
      for (const slot of scan.maybe) boundBefore.add(slot);
    }
  }

  private path(node: Algebra.Path, env: Env): Planned {
    const op = new PathScan(
      this.term(node.subject, env.scope),
      this.pathExpr(node.predicate),
      this.term(node.object, env.scope),
      this.graphRef(node.graph, env),
    );
    return { op, mentioned: new Set(op.maybe) };
  }

  private pathExpr(p: Algebra.PropertyPathSymbol): PathExpr {
    switch (p.type) {
      case 'link':
        return { type: 'link', iri: this.ctx.storeIdOf((p as Algebra.Link).iri) };
      case 'inv':
        return { type: 'inv', path: this.pathExpr((p as Algebra.Inv).path) };
      case 'seq':
        return { type: 'seq', items: (p as Algebra.Seq).input.map((x) => this.pathExpr(x)) };
      case 'alt':
        return { type: 'alt', items: (p as Algebra.Alt).input.map((x) => this.pathExpr(x)) };
      case 'nps':
        return { type: 'nps', iris: (p as Algebra.Nps).iris.map((iri) => this.ctx.storeIdOf(iri)) };
      case 'ZeroOrMorePath':
        return { type: 'zeroOrMore', path: this.pathExpr((p as Algebra.ZeroOrMorePath).path) };
      case 'OneOrMorePath':
        return { type: 'oneOrMore', path: this.pathExpr((p as Algebra.OneOrMorePath).path) };
      case 'ZeroOrOnePath':
        return { type: 'zeroOrOne', path: this.pathExpr((p as Algebra.ZeroOrOnePath).path) };
      default:
        throw new EvaluationError(`unsupported property path ${(p as { type: string }).type}`);
    }
  }

  // ---- combinations ----

  private join(inputs: Algebra.Operation[], env: Env): Planned {
    const steps: Operator[] = [];
    const mentioned = new Set<number>();
    let inputVars = new Set(env.inputVars);
    inputs.forEach((input, i) => {
      const planned = this.compileChild(input, { ...env, inputVars, atRoot: env.atRoot && i === 0 });
      steps.push(planned.op);
      for (const s of planned.mentioned) mentioned.add(s);
      inputVars = union(inputVars, planned.op.maybe);
    });
    if (steps.length === 1) return { op: steps[0], mentioned };
    const op = new Sequence(steps);
    op.estimate = pipelinedEstimate(steps);
    return { op, mentioned };
  }

  private leftJoin(node: Algebra.LeftJoin, env: Env): Planned {
    const [a, b] = node.input;
    const left = this.compileChild(a, env);
    const unboundTest = (node as Partial<LeftJoinUnderUnboundTest>).unboundTest;
    this.optionalAntiJoins.delete(node);
    if (unboundTest !== undefined) {
      const antiJoin = this.optionalAntiJoin(node, left, env.scope.slot(unboundTest), env);
      if (antiJoin) {
        this.optionalAntiJoins.add(node);
        return antiJoin;
      }
    }
    const right = this.compileChild(b, { ...env, inputVars: union(env.inputVars, left.op.maybe), atRoot: false });
    const mentioned = union(left.mentioned, right.mentioned);
    let condition: CompiledExpression | null = null;
    if (node.expression) {
      condition = this.expression(node.expression, env);
      for (const s of condition.slots) mentioned.add(s);
    }
    const tag = env.scope.hidden('optional');
    const op = new LeftJoin(left.op, right.op, condition, tag);
    // Each left solution is kept, extended by the right side's rows for it where it has any.
    const perLeftSolution = right.op instanceof IsolatedJoin ? Number.NaN : right.op.estimate;
    if (Number.isFinite(perLeftSolution)) op.estimate = left.op.estimate * Math.max(1, perLeftSolution);
    return { op, mentioned };
  }

  private filter(node: Algebra.Filter, env: Env): Planned {
    if (this.optimize) {
      const { input, rest } = pushDownFilter(node);
      if (rest.some((e) => existenceOf(e) || (input.type === 'leftjoin' && unboundTestOf(e) !== undefined))) return this.filterWithJoins(input, rest, env);
      if (input !== node.input) return this.filterRest(input, rest, env);
    }
    const child = this.compileChild(node.input, env);
    const condition = this.expression(node.expression, env);
    return { op: new Filter(child.op, condition, expressionText(node.expression)), mentioned: union(child.mentioned, condition.slots) };
  }

  /**
   * A filter whose conjuncts include EXISTS / NOT EXISTS, or !BOUND(?x) over an OPTIONAL: each
   * becomes a semi-join or an anti-join where that keeps the answer (existence-joins.ts). The
   * plain conjuncts filter first, then the joins run, then the EXISTS left as they were.
   */
  private filterWithJoins(input: Algebra.Operation, conjuncts: Algebra.Expression[], env: Env): Planned {
    let rest = conjuncts;
    const unboundTest = input.type === 'leftjoin' ? rest.find((e) => unboundTestOf(e) !== undefined) : undefined;
    if (unboundTest) input = { ...input, unboundTest: unboundTestOf(unboundTest) } as LeftJoinUnderUnboundTest;
    let planned = this.compileChild(input, env);
    if (unboundTest && this.optionalAntiJoins.has(input)) rest = rest.filter((e) => e !== unboundTest);
    const existences = rest.filter((e) => existenceOf(e));
    planned = this.filterOver(
      planned,
      rest.filter((e) => !existenceOf(e)),
      env,
    );
    const perSolution: Algebra.Expression[] = [];
    for (const e of existences) {
      const joined = this.existenceJoin(planned, existenceOf(e)!, env);
      if (joined) planned = joined;
      else perSolution.push(e);
    }
    return this.filterOver(planned, perSolution, env);
  }

  /**
   * FILTER (NOT) EXISTS { P } as a semi-join (anti-join), where P depends on the solution only
   * through variables it always binds; undefined where it does not.
   */
  private existenceJoin(left: Planned, exists: Algebra.ExistenceExpression, env: Env): Planned | undefined {
    const right = this.compile(exists.input, { ...env, inputVars: new Set(env.params), atRoot: true, substitute: false });
    const outer = union(env.inputVars, left.op.maybe);
    if (!independentOfSolution(exists.input, env.scope, outer, right.op.certain, env.params)) return undefined;
    const probe = this.expression({ ...exists, not: false }, env);
    const keys = [...right.op.certain].filter((s) => left.op.certain.has(s) && !env.params.includes(s));
    const op = exists.not
      ? new AntiJoin(left.op, right.op, existsProbe(probe), env.params, keys)
      : new SemiJoin(left.op, right.op, existsProbe(probe), env.params, keys);
    return { op, mentioned: union(left.mentioned, right.mentioned) };
  }

  /**
   * OPTIONAL { P } under FILTER(!BOUND(?x)), where P always binds ?x and nothing else does: the
   * solutions of the left side that no solution of P extends (passing the OPTIONAL's own filter),
   * as they are. Undefined where that is not the answer.
   */
  private optionalAntiJoin(node: Algebra.LeftJoin, left: Planned, slot: number, env: Env): Planned | undefined {
    if (left.op.maybe.has(slot) || env.inputVars.has(slot) || env.substitute) return undefined;
    const b = node.input[1];
    const right = this.compile(b, { ...env, inputVars: new Set(env.params), atRoot: true });
    if (!right.op.certain.has(slot)) return undefined;
    const probeRight = this.compileChild(b, { ...env, inputVars: union(env.inputVars, left.op.maybe), atRoot: false });
    const condition = node.expression ? this.expression(node.expression, env) : null;
    const keys = [...right.op.certain].filter((s) => left.op.certain.has(s) && !env.params.includes(s));
    const probe = optionalProbe(probeRight.op, condition, env.scope.hidden('optional'));
    const op = new AntiJoin(left.op, right.op, probe, env.params, keys, condition);
    return { op, mentioned: union(left.mentioned, right.mentioned, probeRight.mentioned, condition?.slots ?? []) };
  }

  /** A filter of the conjuncts over a planned pattern (the pattern itself when there are none). */
  private filterOver(child: Planned, conjuncts: Algebra.Expression[], env: Env): Planned {
    if (conjuncts.length === 0) return child;
    const expression = conjuncts.reduce((a, b) => ({ type: 'expression', subType: 'operator', operator: '&&', args: [a, b] }) as Algebra.OperatorExpression);
    const condition = this.expression(expression, env);
    return { op: new Filter(child.op, condition, expressionText(expression)), mentioned: union(child.mentioned, condition.slots) };
  }

  /** The group with some conjuncts pushed into it, under a filter of the others (if any are left). */
  private filterRest(input: Algebra.Operation, rest: Algebra.Expression[], env: Env): Planned {
    const child = this.compileChild(input, env);
    if (rest.length === 0) return child;
    const expression = rest.reduce((a, b) => ({ type: 'expression', subType: 'operator', operator: '&&', args: [a, b] }) as Algebra.OperatorExpression);
    const condition = this.expression(expression, env);
    return { op: new Filter(child.op, condition, expressionText(expression)), mentioned: union(child.mentioned, condition.slots) };
  }

  private extend(node: Algebra.Extend, env: Env): Planned {
    const child = this.compileChild(node.input, env);
    const slot = env.scope.slot(node.variable.value);
    const expression = this.expression(node.expression, env);
    const binding = { slot, expression, name: node.variable.value };
    // Consecutive bindings (a SELECT's expressions) share one operator and one BNODE scope per row.
    const op = child.op instanceof Extend ? new Extend(child.op.child, [...child.op.bindings, binding]) : new Extend(child.op, [binding]);
    return { op, mentioned: union(child.mentioned, expression.slots, [slot]) };
  }

  private values(node: Algebra.Values, env: Env): Planned {
    const names = node.variables.map((v) => v.value);
    const slots = names.map((n) => env.scope.slot(n));
    const rows = node.bindings.map((b) => names.map((n) => b[n] as Term | undefined));
    return { op: new Values(slots, rows), mentioned: new Set(slots) };
  }

  private graph(node: Algebra.Graph, env: Env): Planned {
    if (node.name.termType === 'NamedNode') {
      const id = this.idOf(node.name);
      const inner = this.compile(node.input, { ...env, graph: { kind: 'id', id, label: `<${node.name.value}>` } });
      return { op: new Sequence([new GraphGuard(id), inner.op]), mentioned: inner.mentioned };
    }
    const slot = env.scope.slot(node.name.value);
    if (!containsModifier(node.input) && !contains(node.input, 'minus') && !mentionsVariable(node.input, node.name.value)) {
      // Nothing in P can observe ?g: let P's own patterns bind it (one scan over all named graphs).
      const direct = this.compile(node.input, { ...env, graph: { kind: 'slot', slot } });
      if (direct.op.certain.has(slot)) return { op: direct.op, mentioned: union(direct.mentioned, [slot]) };
    }
    const active = env.scope.hidden('graph');
    const child = this.compileChild(node.input, {
      ...env,
      graph: { kind: 'slot', slot: active },
      inputVars: union(env.inputVars, [active]),
      atRoot: false,
      params: [...env.params, active],
    });
    return { op: new GraphEnumerate(child.op, slot, active), mentioned: union(child.mentioned, [slot]) };
  }

  // ---- modifiers and sub-queries ----

  private project(node: Algebra.Project, env: Env): Planned {
    const names = node.variables.map((v) => v.value);
    const scope = env.scope.child(names);
    const slots = names.map((n) => scope.slot(n));
    const child = this.compile(node.input, { ...env, scope });
    const visible = new Set(slots);
    return { op: new Project(child.op, slots), mentioned: new Set([...child.mentioned].filter((s) => visible.has(s))) };
  }

  private group(node: Algebra.Group, env: Env): Planned {
    const child = this.compile(node.input, env);
    const keySlots = node.variables.map((v) => env.scope.slot(v.value));
    const aggregates: AggregateSpec[] = node.aggregates.map((a) => ({
      slot: env.scope.slot(a.variable.value),
      aggregator: a.aggregator as AggregatorName,
      distinct: a.distinct,
      expression: a.expression.subType === 'wildcard' ? null : this.expression(a.expression, env),
      separator: a.separator ?? ' ',
      variableSlot: this.ctx.fastPath('idCounts') ? variableSlotOf(a.expression, env.scope) : undefined,
    }));
    const counted =
      this.optimize && this.ctx.fastPath('countedRows')
        ? withCountedRows(child.op, keySlots, aggregates, [...env.inputVars, ...env.params], this.ctx.statistics(), () => env.scope.hidden('count'))
        : undefined;
    const op = new Group(counted?.input ?? child.op, keySlots, aggregates, this.solutionSlots(node, child.op, env), counted?.weightSlot);
    return { op, mentioned: union(child.mentioned, op.maybe) };
  }

  /** The slots that make two solutions of a group's input distinct for COUNT(DISTINCT *). */
  private solutionSlots(node: Algebra.Group, input: Operator, env: Env): number[] {
    const wildcard = node.aggregates.find((a) => isSolutionWildcard(a.expression));
    if (wildcard) {
      const names = (wildcard.expression as SolutionWildcard).solutionVariables;
      return names.filter((name) => env.scope.has(name)).map((name) => env.scope.slot(name));
    }
    return [...input.maybe];
  }

  private orderBy(node: Algebra.OrderBy, env: Env): Planned {
    const child = this.compile(node.input, env);
    const keys: SortKey[] = node.expressions.map((e) => {
      const descending = e.subType === 'operator' && (e as Algebra.OperatorExpression).operator === 'desc';
      const ascending = e.subType === 'operator' && (e as Algebra.OperatorExpression).operator === 'asc';
      const inner = descending || ascending ? (e as Algebra.OperatorExpression).args[0] : e;
      return { expression: this.expression(inner, env), descending };
    });
    return { op: new OrderBy(child.op, keys, this.sortLimits.get(node)), mentioned: child.mentioned };
  }

  // ---- expressions ----

  expression(expr: Algebra.Expression, env: Env): CompiledExpression {
    const parameters = this.parameters;
    const scope: ExpressionScope = {
      compareIds: this.ctx.fastPath('idComparisons'),
      memoizeValues: this.ctx.fastPath('valueMemos'),
      existsByFirstMatch: this.ctx.fastPath('firstMatchExists'),
      constantRef: parameters
        ? (term) => {
            const n = parameters.placeholder(term);
            return n === undefined ? undefined : parameters.expressionConstant(n);
          }
        : undefined,
      slotOf: (name) => env.scope.slot(name),
      planExists: (pattern) => {
        // EXISTS sees the current solution: every slot of the scope may be bound.
        const all = new Set<number>();
        for (let i = 0; i < env.scope.allocator.width; i++) all.add(i);
        return this.compileChild(pattern, { ...env, inputVars: all, atRoot: false, substitute: true }).op;
      },
    };
    const compiled = compileExpression(expr, scope);
    for (const name of existenceVariables(expr)) if (env.scope.has(name)) compiled.slots.add(env.scope.slot(name));
    return compiled;
  }
}

/**
 * Pattern scans in their order, each filter placed right after the scan that binds the last slot
 * it reads; estimates become cumulative (rows after each step, per incoming solution).
 */
function interleaveFilters(scans: PatternScan[], filters: FilterStep[], params: number[], equalities: readonly SlotEquality[] = []): Operator[] {
  const steps: Operator[] = [];
  const bound = new Set<number>(params);
  const waiting = [...filters];
  const unplacedEqualities = [...equalities];
  let rows = 1;
  // After a scan binds one side of an equality, a step binds the other before the scan that reads it.
  // The copied slot does not count as bound for the filters: the step leaves some terms uncopied.
  const placeEqualities = () => {
    for (let i = 0; i < unplacedEqualities.length;) {
      const e = unplacedEqualities[i];
      const from = bound.has(e.a) ? e.a : e.b;
      const to = from === e.a ? e.b : e.a;
      if (!bound.has(from)) {
        i++;
        continue;
      }
      unplacedEqualities.splice(i, 1);
      if (bound.has(to)) continue;
      const step = new EqualityBind(from, to, e.sameTerm);
      step.estimate = rows;
      steps.push(step);
    }
  };
  const placeReady = () => {
    for (let i = 0; i < waiting.length;) {
      if ([...waiting[i].condition.slots].every((s) => bound.has(s))) {
        rows *= FILTER_SELECTIVITY;
        waiting[i].estimate = rows;
        steps.push(waiting.splice(i, 1)[0]);
      } else i++;
    }
  };
  for (const scan of scans) {
    rows *= Math.max(scan.estimate, 0.01);
    scan.estimate = rows;
    steps.push(scan);
    for (const s of scan.maybe) bound.add(s);
    placeEqualities();
    placeReady();
  }
  for (const f of waiting) {
    rows *= FILTER_SELECTIVITY;
    f.estimate = rows;
    steps.push(f);
  }
  return steps;
}

/**
 * Rows out of a join of groups, each step extending the solutions of the one before: the product of
 * the steps' estimates, each made per incoming solution (a group's patterns are estimated with the
 * variables of the steps before it bound). Unknown (NaN) where a step is evaluated on its own and
 * hash-joined (IsolatedJoin): its estimate is of its own rows, and how many of them a solution meets is
 * not estimated.
 */
function pipelinedEstimate(steps: readonly Operator[]): number {
  let rows = 1;
  for (const step of steps) {
    if (step instanceof IsolatedJoin) return Number.NaN;
    rows *= step.estimate;
  }
  return rows;
}

/** The share of solutions a filter is assumed to keep. */
const FILTER_SELECTIVITY = 0.5;

/** The slot of an expression that is a plain variable (not a blank node label). */
function variableSlotOf(expression: Algebra.Expression, scope: Scope): number | undefined {
  if (expression.subType !== 'term') return undefined;
  const term = (expression as Algebra.TermExpression).term;
  return term.termType === 'Variable' ? scope.slot(term.value) : undefined;
}

function containsModifier(node: Algebra.Operation): boolean {
  return [...MODIFIERS].some((type) => contains(node, type));
}

function contains(node: Algebra.Operation, type: string): boolean {
  if (node.type === type) return true;
  const input = (node as { input?: Algebra.Operation | Algebra.Operation[] }).input;
  if (!input) return false;
  return Array.isArray(input) ? input.some((n) => contains(n, type)) : contains(input, type);
}

/** Whether a variable occurs anywhere in the algebra (patterns, expressions, VALUES, nested GRAPH). */
function mentionsVariable(node: unknown, name: string): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((n) => mentionsVariable(n, name));
  const n = node as Record<string, unknown>;
  if (n.termType === 'Variable') return n.value === name;
  if (n.termType === 'Quad') return [n.subject, n.predicate, n.object, n.graph].some((t) => mentionsVariable(t, name));
  if (n.termType !== undefined) return false;
  return Object.values(n).some((v) => mentionsVariable(v, name));
}

/** The ORDER BY right under a slice (through a projection only: nothing between may drop rows). */
function sortUnderSlice(slice: Algebra.Slice): Algebra.Operation | undefined {
  let node = slice.input;
  if (node.type === 'project') node = (node as Algebra.Project).input;
  return node.type === 'orderby' ? node : undefined;
}
