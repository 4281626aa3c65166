/**
 * What the fuzzer adds for LOAD, SERVICE and GRAPH: updates and queries that fetch from random
 * targets (the test's hostile peer in every spelling of its address, the server itself, loopback
 * spellings it must refuse, private and special addresses, names) and move graphs about, for the
 * mutations to mangle further.
 *
 * And the guard that keeps a fuzzed request on this machine: a mutation can put LOAD before any
 * IRI of the W3C texts (http://example.org/…), so in every request that mentions LOAD or SERVICE,
 * each http(s) IRI whose host is not a loopback, private or special address, or a name of
 * target-spellings.ts, is rewritten to a private address, which the server refuses without
 * connecting anywhere.
 */
import { nonPublicReason } from '../../src/net/fetch-targets.js';
import { PEER_KINDS, type HostilePeer, type PeerRole } from './hostile-peer.js';
import type { Random } from './prng.js';
import { ALL_HOSTS, type TargetSpellings } from './target-spellings.js';

export class RemoteFuzz {
  private marks = 0;

  constructor(
    private readonly peer: HostilePeer,
    private readonly targets: TargetSpellings,
  ) {}

  /** An update that fetches (LOAD, SERVICE in its WHERE) and moves graphs about. */
  update(random: Random): string {
    const operations = Array.from({ length: random.int(1, 3) }, () => this.updateOperation(random));
    return operations.join(' ;\n');
  }

  /** A query over SERVICE and GRAPH patterns. */
  query(random: Random): string {
    const service = `SERVICE ${this.silent(random)}<${this.target(random, 'results')}> { ?s ?p ?o }`;
    return random.pick([
      () => `SELECT * WHERE { ${service} }`,
      () => `SELECT ?g ?o WHERE { GRAPH ?g { ?s ?p ?o } ${service} } LIMIT 10`,
      () => `SELECT * WHERE { { ${service} } UNION { SERVICE ${this.silent(random)}<${this.target(random, 'results')}> { ?s ?p ?o } } }`,
      () => `ASK { ${service} FILTER(BOUND(?o)) }`,
      () => `SELECT * WHERE { OPTIONAL { ${service} } GRAPH <${this.graph(random)}> { ?a ?b ?c } }`,
      () => `CONSTRUCT { ?s ?p ?o } WHERE { ${service} }`,
    ])();
  }

  private updateOperation(random: Random): string {
    const g = (): string => this.graph(random);
    return random.pick([
      () => `LOAD ${this.silent(random)}<${this.target(random, 'doc')}>`,
      () => `LOAD ${this.silent(random)}<${this.target(random, 'doc')}> INTO GRAPH <${g()}>`,
      () => `INSERT { GRAPH <${g()}> { ?s ?p ?o } } WHERE { SERVICE ${this.silent(random)}<${this.target(random, 'results')}> { ?s ?p ?o } }`,
      () => `INSERT { GRAPH <${g()}> { ?s ?p ?o } } WHERE { GRAPH <${g()}> { ?s ?p ?o } }`,
      () => `DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o FILTER(isLiteral(?o)) } }`,
      () => `WITH <${g()}> DELETE { ?s ?p ?o } INSERT { ?s <urn:moved> ?o } WHERE { ?s ?p ?o }`,
      () => `INSERT DATA { GRAPH <${g()}> { <urn:fuzz:${++this.marks}> <urn:p> "in a graph" } }`,
      () => `${random.pick(['COPY', 'MOVE', 'ADD'])} ${this.silent(random)}${random.chance(0.2) ? 'DEFAULT' : `<${g()}>`} TO <${g()}>`,
      () => `${random.pick(['CREATE', 'DROP', 'CLEAR'])} ${this.silent(random)}GRAPH <${g()}>`,
    ])();
  }

  private silent(random: Random): string {
    return random.chance(0.4) ? 'SILENT ' : '';
  }

  private graph(random: Random): string {
    return `http://example.org/g${random.int(1, 5)}`;
  }

  /** A LOAD document or SERVICE endpoint: the peer in any state, the server itself, or a target to refuse. */
  target(random: Random, role: PeerRole): string {
    const { ports } = this.targets;
    const r = random.next();
    if (r < 0.5) {
      const host = this.targets.authority(this.targets.openHost(random), ports.peer);
      const path = random.chance(0.1)
        ? this.peer.redirectPath(random.pick([301, 302, 303, 307, 308]), this.target(random, role))
        : this.peer.path(role, random.pick(PEER_KINDS), `fuzz-${++this.marks}`, random.int(0, 2 ** 31));
      return `http://${host}${path}`;
    }
    if (r < 0.6) {
      const host = `http://${this.targets.authority(this.targets.openHost(random), ports.self)}`;
      if (role === 'results') return `${host}/sparql`;
      return random.chance(0.5)
        ? `${host}/sparql/update?update=${encodeURIComponent(`INSERT DATA { <urn:fuzz:self:${++this.marks}> <urn:p> 1 }`)}`
        : `${host}/sparql?query=${encodeURIComponent('CONSTRUCT WHERE { ?s ?p ?o } LIMIT 5')}`;
    }
    const { host, port } = this.targets.closedTarget(random);
    return `http://${this.targets.authority(host, port)}/${random.pick(['sparql', 'doc.ttl', 'latest/meta-data/', ''])}`;
  }
}

/** A host a fetch may be pointed at: this machine, a private or special address, or a name of ours. */
function staysOnThisMachine(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (/^[\d.]+$/.test(bare) || bare.includes(':')) return nonPublicReason(bare) !== undefined;
  return ALL_HOSTS.some((host) => host.toLowerCase() === bare);
}

/** Somewhere the server refuses to fetch from without trying (a private address). */
const NOWHERE = 'http://10.255.255.1/confined';

const MENTIONS_FETCH = /load|service/i;
/** An http(s) IRI as far as a parser could read it: up to whatever ends an IRI or a token. */
const HTTP_IRI = /https?:[^\s<>"'{}|^`\\]*/gi;
/** A network-path reference, `<//host/…>`, resolved against the request's http URL. */
const NETWORK_PATH = /<\/\/[^\s<>"'{}|^`\\]*/g;

/**
 * The body, with every http(s) IRI that could lead off this machine rewritten to NOWHERE, when it
 * mentions LOAD or SERVICE. Bytes that are not UTF-8 are kept as they are (latin1 round trip);
 * codepoint escapes (\u0068ttp) are broken, and percent escapes too where they would spell an IRI
 * that leads off, so that no IRI can be spelled past the check.
 */
export function confineFetches(body: Buffer): Buffer {
  const text = body.toString('latin1');
  if (!MENTIONS_FETCH.test(text) && !MENTIONS_FETCH.test(loosePercentDecode(text))) return body;
  const confined = confineIris(text.replace(/\\([uU])/g, '_$1'));
  // A form body is percent-decoded: where that would spell an IRI that leads off, escapes go.
  const decoded = loosePercentDecode(confined);
  return Buffer.from(confineIris(decoded) === decoded ? confined : confined.replace(/%/g, '%25'), 'latin1');
}

function confineIris(text: string): string {
  return text
    .replace(HTTP_IRI, (iri) => (leadsOffAnywhere(iri) ? NOWHERE : iri))
    .replace(NETWORK_PATH, (reference) => (leadsOffAnywhere(`http:${reference.slice(1)}`) ? `<${NOWHERE}` : reference));
}

/**
 * Whether the IRI, or an IRI inside it (a redirect's target in its query, percent-encoded up to
 * three times over: the peer redirects where its `to` parameter says), leads off this machine.
 */
function leadsOffAnywhere(iri: string): boolean {
  const views = [iri];
  for (let n = 0; n < 3; n++) views.push(loosePercentDecode(views[n]!));
  return views.some((view) => [...view.matchAll(/https?:|\/\//gi)].some((start) => leadsOff(absolute(view.slice(start.index)))));
}

function absolute(reference: string): string {
  return reference.startsWith('//') ? `http:${reference}` : reference;
}

function loosePercentDecode(text: string): string {
  return text.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function leadsOff(iri: string): boolean {
  try {
    return !staysOnThisMachine(new URL(Buffer.from(iri, 'latin1').toString('utf8')).hostname);
  } catch {
    // What the URL parser cannot read, the server cannot fetch either; rewritten all the same.
    return true;
  }
}
