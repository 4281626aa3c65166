/**
 * The bank of the isolation tests: accounts whose balances writers move between, so that the
 * total never changes; any read that sees a different total saw half a transaction.
 */
import type { Random } from './prng.js';

const NS = 'urn:quiver:bank:';
export const BALANCE = `${NS}balance`;
export const FILLER = `${NS}filler`;

export interface Bank {
  accounts: number;
  initial: number;
}

export function total(bank: Bank): number {
  return bank.accounts * bank.initial;
}

export function account(i: number): string {
  return `${NS}account/${i}`;
}

/** The accounts, and `fillers` extra resources that make a cross product long enough to stream. */
export function openingUpdate(bank: Bank, fillers = 0): string {
  const accounts = Array.from({ length: bank.accounts }, (_, i) => `<${account(i)}> <${BALANCE}> ${bank.initial} .`);
  const filler = Array.from({ length: fillers }, (_, i) => `<${NS}filler/${i}> <${FILLER}> ${i} .`);
  return `INSERT DATA {\n${[...accounts, ...filler].join('\n')}\n}`;
}

/** One transfer of a random amount between two random accounts, in one DELETE/INSERT WHERE. */
export function transferUpdate(bank: Bank, random: Random): string {
  const from = random.int(0, bank.accounts - 1);
  const to = (from + random.int(1, bank.accounts - 1)) % bank.accounts;
  const amount = random.int(1, 50);
  return `DELETE { <${account(from)}> <${BALANCE}> ?x . <${account(to)}> <${BALANCE}> ?y }
INSERT { <${account(from)}> <${BALANCE}> ?nx . <${account(to)}> <${BALANCE}> ?ny }
WHERE { <${account(from)}> <${BALANCE}> ?x . <${account(to)}> <${BALANCE}> ?y . BIND(?x - ${amount} AS ?nx) BIND(?y + ${amount} AS ?ny) }`;
}

export const SUM_QUERY = `SELECT (SUM(?b) AS ?total) (COUNT(?b) AS ?n) WHERE { ?a <${BALANCE}> ?b }`;

/** Every balance once per filler: long enough that the reader cannot take it in one gulp. */
export const CROSS_QUERY = `SELECT ?a ?b ?f WHERE { ?f <${FILLER}> ?x . ?a <${BALANCE}> ?b }`;

/**
 * Checks rows of CROSS_QUERY (account, balance) against the invariant: one balance per account in
 * the whole result, the balances summing to the total, every account once per filler.
 */
export function checkSnapshot(bank: Bank, fillers: number, rows: Iterable<[string, number]>): Map<string, number> {
  const balances = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const [a, b] of rows) {
    const seen = balances.get(a);
    if (seen !== undefined && seen !== b) throw new Error(`account ${a} shows two balances in one result: ${seen} and ${b}`);
    balances.set(a, b);
    counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  if (balances.size !== bank.accounts) throw new Error(`${balances.size} accounts in the result, expected ${bank.accounts}`);
  const sum = [...balances.values()].reduce((x, y) => x + y, 0);
  if (sum !== total(bank)) throw new Error(`balances sum to ${sum}, expected ${total(bank)}`);
  for (const [a, n] of counts) if (n !== fillers) throw new Error(`account ${a} appears ${n} times, expected ${fillers}`);
  return balances;
}
