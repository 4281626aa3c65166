/**
 * The far side of LOAD and SERVICE, played on loopback by the test itself: documents (/doc/…) and
 * SPARQL endpoints (/results/…) that are fine, or endless, trickling, stalled, broken off, oversized
 * by their own declaration, garbage, error pages, redirects, or silent. Whatever of it must never
 * reach a client of Quiver (garbage, error pages, redirect bodies) carries SECRET, so that a suite
 * can check that no answer quotes what was fetched.
 *
 * The sentinel is a listener on loopback that nobody may reach: it counts the connections it gets,
 * which must stay 0 whatever spelling of its address a request uses.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { Random } from './prng.js';

/** Letters and digits only, so that no escaping (HTML, JSON, XML) can hide it in an answer. */
export const SECRET = 'QuiverFetchedSecret7f3a';

export const PEER_KINDS = ['good', 'endless', 'trickle', 'declared-huge', 'stalled', 'broken', 'garbage', 'error', 'silent'] as const;
export type PeerKind = (typeof PEER_KINDS)[number];
/** `doc`: an RDF document for LOAD; `results`: a SPARQL endpoint for SERVICE. */
export type PeerRole = 'doc' | 'results';

export interface HostilePeer {
  origin: string;
  port: number;
  /**
   * The path of a document or endpoint. `mark` names the subject of a good document's triples
   * (`<urn:peer:MARK>`) and the value of a good endpoint's one solution; `seed` fixes everything
   * else the answer draws (format, rates, garbage).
   */
  path(role: PeerRole, kind: PeerKind, mark: string, seed: number): string;
  /** A redirect, with the given status, to `to`. */
  redirectPath(status: number, to: string): string;
  /** Requests per `role/kind`. */
  hits: Map<string, number>;
  /** Answers still being sent or held: once the server has given up on them, none. */
  openAnswers(): number;
  close(): Promise<void>;
}

/** How long an answer that would never end is kept going at most, whatever the server does. */
const LONGEST_ANSWER_MS = 120_000;
const TEN_GIB = String(10 * 2 ** 30);

export async function startHostilePeer(): Promise<HostilePeer> {
  const hits = new Map<string, number>();
  let open = 0;
  const server: Server = createServer((req, res) => {
    open++;
    const safety = setTimeout(() => res.destroy(), LONGEST_ANSWER_MS);
    res.once('close', () => {
      open--;
      clearTimeout(safety);
    });
    // The request body (a SERVICE query) is not needed; reading it lets the exchange go on.
    req.resume();
    route(req, res, hits);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    path: (role, kind, mark, seed) => `/${role}/${kind}?mark=${encodeURIComponent(mark)}&seed=${seed}`,
    redirectPath: (status, to) => `/redirect?status=${status}&to=${encodeURIComponent(to)}`,
    hits,
    openAnswers: () => open,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function route(req: IncomingMessage, res: ServerResponse, hits: Map<string, number>): void {
  const url = new URL(req.url ?? '/', 'http://peer');
  if (url.pathname === '/redirect') {
    hits.set('redirect', (hits.get('redirect') ?? 0) + 1);
    res.writeHead(Number(url.searchParams.get('status')), { location: url.searchParams.get('to')!, 'content-type': 'text/plain' }).end(`${SECRET} moved`);
    return;
  }
  const [, role, kind] = url.pathname.split('/') as [string, PeerRole, PeerKind];
  hits.set(`${role}/${kind}`, (hits.get(`${role}/${kind}`) ?? 0) + 1);
  const random = new Random(Number(url.searchParams.get('seed') ?? 0), 'peer', kind);
  const content = role === 'results' ? RESULTS : DOCUMENTS;
  const mark = url.searchParams.get('mark') ?? 'none';
  if (!(PEER_KINDS as readonly string[]).includes(kind) || (role !== 'doc' && role !== 'results')) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`${SECRET}: no such page`);
    return;
  }
  ANSWERS[kind](res, content, mark, random);
}

/** What a format's stream is made of: a beginning, a piece to repeat, an end, and one whole good answer. */
interface Content {
  formats: {
    type: string;
    head: string;
    piece: (i: number) => string;
    tail: string;
  }[];
  good(mark: string, random: Random): { type: string; body: string };
}

const DOCUMENTS: Content = {
  formats: [
    { type: 'text/turtle', head: '@prefix u: <urn:> .\n', piece: (i) => `u:endless u:p "piece ${i} of a document that never ends" .\n`, tail: '' },
    { type: 'application/n-triples', head: '', piece: (i) => `<urn:endless> <urn:p> "piece ${i} of a document that never ends" .\n`, tail: '' },
  ],
  good(mark, random) {
    const n = random.int(1, 20);
    const values = Array.from({ length: n }, (_, i) => i);
    const subject = `urn:peer:${mark}`;
    switch (random.pick(['turtle', 'ntriples', 'rdfxml', 'jsonld'])) {
      case 'turtle':
        return { type: 'text/turtle', body: `@prefix u: <urn:> .\n<${subject}> ${values.map((i) => `u:p "${i}"`).join(' ;\n  ')} .\n` };
      case 'ntriples':
        return { type: 'application/n-triples', body: values.map((i) => `<${subject}> <urn:p> "${i}" .\n`).join('') };
      case 'rdfxml':
        return {
          type: 'application/rdf+xml',
          body: `<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:u="urn:"><rdf:Description rdf:about="${subject}">${values.map((i) => `<u:p>${i}</u:p>`).join('')}</rdf:Description></rdf:RDF>\n`,
        };
      default:
        return { type: 'application/ld+json', body: JSON.stringify([{ '@id': subject, 'urn:p': values.map((i) => ({ '@value': String(i) })) }]) };
    }
  },
};

const RESULTS: Content = {
  formats: [
    {
      type: 'application/sparql-results+json',
      head: '{"head":{"vars":["o"]},"results":{"bindings":[{"o":{"type":"literal","value":"first"}}',
      piece: (i) => `,{"o":{"type":"literal","value":"solution ${i} of an answer that never ends"}}`,
      tail: ']}}',
    },
    {
      type: 'application/sparql-results+xml',
      head: '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="o"/></head><results>',
      piece: (i) => `<result><binding name="o"><literal>solution ${i} of an answer that never ends</literal></binding></result>`,
      tail: '</results></sparql>',
    },
  ],
  good(mark, random) {
    if (random.chance(0.5)) {
      return {
        type: 'application/sparql-results+json',
        body: JSON.stringify({ head: { vars: ['o'] }, results: { bindings: [{ o: { type: 'literal', value: mark } }] } }),
      };
    }
    const xml = `<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="o"/></head><results><result><binding name="o"><literal>${mark}</literal></binding></result></results></sparql>`;
    return { type: 'application/sparql-results+xml', body: xml };
  },
};

type Answer = (res: ServerResponse, content: Content, mark: string, random: Random) => void;

const ANSWERS: Record<PeerKind, Answer> = {
  good: (res, content, mark, random) => {
    const { type, body } = content.good(mark, random);
    res.writeHead(200, { 'content-type': type }).end(body);
  },
  endless: (res, content, _mark, random) => {
    const format = random.pick(content.formats);
    res.writeHead(200, { 'content-type': format.type });
    pour(res, format.head, format.piece);
  },
  trickle: (res, content, _mark, random) => {
    const format = random.pick(content.formats);
    res.writeHead(200, { 'content-type': format.type });
    res.write(format.head);
    let i = 0;
    const timer = setInterval(() => res.write(format.piece(i++)), random.int(20, 300));
    res.once('close', () => clearInterval(timer));
  },
  'declared-huge': (res, content, _mark, random) => {
    const format = random.pick(content.formats);
    res.writeHead(200, { 'content-type': format.type, 'content-length': TEN_GIB });
    if (random.chance(0.5)) pour(res, format.head, format.piece);
    else res.write(format.head + format.piece(0));
  },
  stalled: (res, content, _mark, random) => {
    const format = random.pick(content.formats);
    res.writeHead(200, { 'content-type': format.type });
    res.write(format.head + Array.from({ length: random.int(0, 50) }, (_, i) => format.piece(i)).join(''));
  },
  broken: (res, content, _mark, random) => {
    const format = random.pick(content.formats);
    res.writeHead(200, { 'content-type': format.type });
    res.write(format.head + Array.from({ length: random.int(1, 200) }, (_, i) => format.piece(i)).join(''));
    setTimeout(() => res.socket?.destroy(), random.int(0, 200));
  },
  garbage: (res, content, _mark, random) => {
    const { type, body } = garbage(content, random);
    res.writeHead(200, type === undefined ? {} : { 'content-type': type }).end(body);
  },
  error: (res, _content, _mark, random) => {
    const status = random.pick([301, 400, 401, 403, 404, 410, 418, 500, 502, 503]);
    res.writeHead(status, { 'content-type': random.pick(['text/plain', 'text/html', 'application/json', 'text/turtle']) });
    res.end(`${SECRET}: the internal page behind this error`);
  },
  silent: () => {
    // No head, no body: the request is held until the client gives up.
  },
};

/** Writes `head`, then `piece`s as fast as the client reads, until it goes away. */
function pour(res: ServerResponse, head: string, piece: (i: number) => string): void {
  res.write(head);
  let i = 0;
  const chunk = (): string => {
    let text = '';
    while (text.length < 16_384) text += piece(i++);
    return text;
  };
  const go = (): void => {
    while (!res.destroyed && res.write(chunk()));
    if (!res.destroyed) res.once('drain', go);
  };
  go();
}

/**
 * An answer that no parser takes, holding SECRET, under a media type that may or may not say
 * what it claims: text that starts well and goes wrong, a NUL byte (invalid in every format),
 * HTML, random bytes.
 */
function garbage(content: Content, random: Random): { type: string | undefined; body: Buffer } {
  const format = random.pick(content.formats);
  // Errors may name a media type that looks like one (`text/html`): SECRET goes only where it does not.
  const type = random.pick([
    format.type,
    format.type,
    'text/html',
    'application/octet-stream',
    SECRET,
    `text/html; charset=${SECRET}`,
    `${SECRET}/x/y`,
    undefined,
  ]);
  const noise = Buffer.from(Array.from({ length: random.int(0, 300) }, () => random.int(0, 255)));
  const text = random.pick([
    () => `${format.head}${format.piece(0)}${format.piece(1)}\n${SECRET} {{ <<`,
    () => `\u0000${SECRET} is what this internal page says`,
    () => `<html><head><title>${SECRET}</title></head><body>\u0000${SECRET}</body></html>`,
    () => `\u0000{"${SECRET}": [`,
  ])();
  return { type, body: Buffer.concat([Buffer.from(text), random.chance(0.3) ? noise : Buffer.alloc(0)]) };
}

export interface Sentinel {
  port: number;
  /** Connections it has had, on any of its addresses. */
  connections(): number;
  /** The addresses it listens on (127.0.0.1 always; ::1 and 127.0.0.2 where the machine has them). */
  addresses: string[];
  close(): Promise<void>;
}

export async function startSentinel(): Promise<Sentinel> {
  let connections = 0;
  const servers: TcpServer[] = [];
  const listen = (host: string, port: number): Promise<TcpServer | undefined> => {
    const server = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    return new Promise((resolve) => {
      server.once('error', () => resolve(undefined));
      server.listen(port, host, () => resolve(server));
    });
  };
  const first = (await listen('127.0.0.1', 0))!;
  servers.push(first);
  const port = (first.address() as { port: number }).port;
  const addresses = ['127.0.0.1'];
  for (const host of ['::1', '127.0.0.2']) {
    const server = await listen(host, port);
    if (server) {
      servers.push(server);
      addresses.push(host);
    }
  }
  return {
    port,
    connections: () => connections,
    addresses,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
