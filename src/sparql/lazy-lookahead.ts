/**
 * A Chevrotain lookahead strategy that builds each decision's lookahead function the first time
 * the parser reaches that decision, instead of all of them when the parser is built.
 *
 * Chevrotain's LL(k) strategy computes, for every OR, OPTION and MANY of the grammar, the token
 * paths that choose each branch, and it does so for the whole SPARQL 1.2 grammar (some eleven
 * hundred decisions) before the first query is parsed: about a third of building the parser, and
 * most of what a one-shot `quiver query` spends before it answers (bench/cli-startup.ts). A query
 * reaches a few dozen of them. The functions built are the same, from the same recorded grammar,
 * so a parse decides exactly as before; a long-running server builds them over its first queries.
 */
import { LLkLookaheadStrategy } from '@traqula/chevrotain';
import type { ILookaheadStrategy, Rule } from '@traqula/chevrotain';

type AlternationOptions = Parameters<ILookaheadStrategy['buildLookaheadForAlternation']>[0];
type OptionalOptions = Parameters<ILookaheadStrategy['buildLookaheadForOptional']>[0];
type AlternationLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForAlternation']>;
type OptionalLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForOptional']>;

export class LazyLookaheadStrategy implements ILookaheadStrategy {
  private readonly eager: ILookaheadStrategy;

  /** @param eager builds each function when first needed: Chevrotain's own LL(k) by default. */
  constructor(eager: ILookaheadStrategy = new LLkLookaheadStrategy()) {
    this.eager = eager;
  }

  initialize(options: { rules: Rule[] }): void {
    this.eager.initialize?.(options);
  }

  /** Grammar checks, which Traqula skips (`skipValidations`): the LL(k) strategy's own. */
  validate(options: Parameters<ILookaheadStrategy['validate']>[0]): ReturnType<ILookaheadStrategy['validate']> {
    return this.eager.validate(options);
  }

  buildLookaheadForAlternation(options: AlternationOptions): AlternationLookahead {
    const eager = this.eager;
    let built: AlternationLookahead | undefined;
    // The parser calls it with itself as `this`: the built function reads the tokens through it.
    return function (this: unknown, alternatives) {
      built ??= eager.buildLookaheadForAlternation(options);
      return built.call(this, alternatives);
    };
  }

  buildLookaheadForOptional(options: OptionalOptions): OptionalLookahead {
    const eager = this.eager;
    let built: OptionalLookahead | undefined;
    return function (this: unknown) {
      built ??= eager.buildLookaheadForOptional(options);
      return built.call(this);
    };
  }
}
