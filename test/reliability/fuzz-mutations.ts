/**
 * Hostile variants of valid SPARQL: token-level edits, stray punctuation, truncation, huge literals,
 * deep nesting, random and invalid UTF-8 bytes. Each mutation returns the new body as bytes.
 */
import type { Random } from './prng.js';

const TOKEN = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|<[^<>\s]*>|[{}()[\].,;]|[^\s{}()[\].,;]+|\s+/g;
const PUNCTUATION = '{}()[].,;?$"\'<>#@^*+|/!=&-_:\\`~%'.split('');
const KEYWORDS = [
  'SELECT',
  'ASK',
  'CONSTRUCT',
  'DESCRIBE',
  'WHERE',
  'FILTER',
  'OPTIONAL',
  'UNION',
  'MINUS',
  'GRAPH',
  'BIND',
  'VALUES',
  'GROUP BY',
  'ORDER BY',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'DISTINCT',
  'INSERT',
  'DELETE',
  'DATA',
  'WITH',
  'USING',
  'CLEAR',
  'DROP',
  'CREATE',
  'ADD',
  'MOVE',
  'COPY',
  'ALL',
  'DEFAULT',
  'NAMED',
  'SILENT',
  'EXISTS',
  'NOT',
  'AS',
  'COUNT(*)',
  'SUM(?x)',
  'GROUP_CONCAT(?x; SEPARATOR="")',
  'REGEX(?x, "(a+)+$")',
  'STRDT("1", <http://www.w3.org/2001/XMLSchema#integer>)',
  '?x',
  '?_',
  '$y',
  '_:b',
  '[]',
  '()',
  '1e400',
  '-0.0',
  '"\\u0000"',
  '<>',
  '<http://a/b c>',
  '"x"^^<http://www.w3.org/2001/XMLSchema#dateTime>',
  '*',
  'a',
  '^',
  '!',
  '|',
  '/',
  '+',
  '?',
  'BASE <rel/>',
  'PREFIX : <http://example.org/>',
  '<<',
  '>>',
];

export type Mutation = (text: string, random: Random) => Buffer;

function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [text];
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

function editTokens(text: string, random: Random, edit: (list: string[], i: number, j: number) => void): Buffer {
  const list = tokens(text);
  if (list.length === 0) return utf8(text);
  edit(list, random.int(0, list.length - 1), random.int(0, list.length - 1));
  return utf8(list.join(''));
}

export const MUTATIONS: Record<string, Mutation> = {
  deleteToken: (text, random) => editTokens(text, random, (list, i) => list.splice(i, 1)),
  duplicateToken: (text, random) => editTokens(text, random, (list, i, j) => list.splice(j, 0, list[i])),
  swapTokens: (text, random) => editTokens(text, random, (list, i, j) => ([list[i], list[j]] = [list[j], list[i]])),
  replaceWithKeyword: (text, random) => editTokens(text, random, (list, i) => (list[i] = ` ${random.pick(KEYWORDS)} `)),
  insertKeyword: (text, random) => editTokens(text, random, (list, i) => list.splice(i, 0, ` ${random.pick(KEYWORDS)} `)),
  insertPunctuation: (text, random) => {
    let out = text;
    for (let n = random.int(1, 4); n > 0; n--) {
      const at = random.int(0, out.length);
      out = out.slice(0, at) + random.pick(PUNCTUATION) + out.slice(at);
    }
    return utf8(out);
  },
  truncate: (text, random) => utf8(text.slice(0, random.int(0, text.length))),
  hugeLiteral: (text, random) => {
    const literal = `"${random.pick(['x', 'é', '\\n', '😀', '\\u0041'])}${'y'.repeat(random.int(10_000, 2_000_000))}"`;
    return editTokens(text, random, (list, i) => list.splice(i, 0, ` ${literal} `));
  },
  hugeIri: (text, random) => editTokens(text, random, (list, i) => list.splice(i, 0, ` <http://example.org/${'i'.repeat(random.int(10_000, 500_000))}> `)),
  deepNesting: (text, random) => {
    const depth = random.int(100, 20_000);
    const kind = random.pick([
      ['{', '}'],
      ['(', ')'],
      ['{ SELECT * WHERE {', '} }'],
      ['[ <http://example.org/p> ', ' ]'],
      ['NOT EXISTS {', '}'],
      ['(1+', ')'],
      ['!(', ')'],
      ['(<http://example.org/p>/', ')'],
    ]);
    const balanced = random.chance(0.7);
    const inner = kind[0].repeat(depth) + ' ?x ' + (balanced ? kind[1].repeat(depth) : '');
    return editTokens(text, random, (list, i) => list.splice(i, 0, ` ${inner} `));
  },
  deepExpression: (_text, random) => {
    const depth = random.int(100, 20_000);
    const op = random.pick(['+', '*', '&&', '||', '=', '<']);
    const expression = Array.from({ length: depth }, (_, i) => String(i)).join(` ${op} `);
    return utf8(`SELECT * WHERE { BIND((${expression}) AS ?x) }`);
  },
  randomBytes: (_text, random) => Buffer.from(Array.from({ length: random.int(0, 2000) }, () => random.int(0, 255))),
  invalidUtf8: (text, random) => {
    const bytes = utf8(text);
    const at = random.int(0, bytes.length);
    const junk = Buffer.from(random.pick([[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0x00]]));
    return Buffer.concat([bytes.subarray(0, at), junk, bytes.subarray(at)]);
  },
  controlCharacters: (text, random) => {
    const at = random.int(0, text.length);
    return utf8(text.slice(0, at) + String.fromCharCode(random.int(0, 31)) + '\u202e\ufeff\ud800'.slice(random.int(0, 2)) + text.slice(at));
  },
  splice: (text, random) => {
    const list = tokens(text);
    const cut = random.int(0, list.length);
    return utf8(list.slice(0, cut).join('') + list.slice(random.int(0, list.length)).join(''));
  },
  unchanged: (text) => utf8(text),
};

/** Costly for both sides (megabytes, thousands of levels): one request in ten. */
const HEAVY = ['hugeLiteral', 'hugeIri', 'deepNesting', 'deepExpression'];
const LIGHT = Object.keys(MUTATIONS).filter((name) => !HEAVY.includes(name));

/** One to three mutations in a row. */
export function mutate(text: string, random: Random): { body: Buffer; applied: string[] } {
  const applied: string[] = [];
  let body = utf8(text);
  for (let n = random.int(1, 3); n > 0; n--) {
    const name = random.chance(0.04) ? random.pick(HEAVY) : random.pick(LIGHT);
    applied.push(name);
    body = MUTATIONS[name](body.toString('utf8'), random);
    if (name === 'randomBytes' || name === 'invalidUtf8') break;
  }
  return { body, applied };
}
