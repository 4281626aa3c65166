/**
 * Reads the W3C Graph Store Protocol manifests (../shared/rdf-tests/sparql11/graph-store-protocol/):
 * each test is a sequence of HTTP exchanges described in the W3C HTTP vocabulary (ht:), with the
 * expected status, headers and body of every response.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import N3 from 'n3';
import { factory, type Quad, type Term } from '../../src/rdf/terms.js';
import { sharedTestsDir } from '../protocol/protocol-manifest.js';

const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
const HT = 'http://www.w3.org/2011/http#';
const HTS = 'http://www.w3.org/2011/http-statusCodes#';
const CNT = 'http://www.w3.org/2011/content#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

export interface GspRequest {
  method: string;
  /** As written in the manifest: starts with /gsp. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  expected: {
    /** Acceptable statuses: exact codes, or a class like '2xx'. */
    statuses: string[];
    /** A template variable to be replaced by this response's Location in later requests. */
    location?: string;
    headers: Record<string, string>;
    body?: string;
  };
}

export interface GspTest {
  id: string;
  name: string;
  requires: string[];
  requests: GspRequest[];
}

const STATUS_CODES: Record<string, string> = {
  OK: '200',
  Created: '201',
  NoContent: '204',
  BadRequest: '400',
  NotFound: '404',
  MethodNotAllowed: '405',
  UnsupportedMediaType: '415',
};

export function graphStoreTestsDir(): string {
  return join(sharedTestsDir(), 'graph-store-protocol');
}

export function readGspManifest(file: string): GspTest[] {
  const path = join(graphStoreTestsDir(), file);
  const quads = new N3.Parser({ baseIRI: `file://${path}`, factory }).parse(readFileSync(path, 'utf8')) as Quad[];
  const graph = new Graph(quads);
  const manifest = quads.find((q) => q.predicate.value === `${MF}entries`)!.subject;
  return graph.list(graph.one(manifest, `${MF}entries`)!).map((entry) => readTest(graph, entry));
}

function readTest(graph: Graph, entry: Term): GspTest {
  const action = graph.one(entry, `${MF}action`)!;
  return {
    id: entry.value.replace(/^.*#/, ''),
    name: graph.one(entry, `${MF}name`)?.value ?? '',
    requires: graph.all(entry, `${MF}requires`).map((t) => t.value.replace(MF, '')),
    requests: graph.list(graph.one(action, `${HT}requests`)!).map((request) => readRequest(graph, request)),
  };
}

function readRequest(graph: Graph, request: Term): GspRequest {
  const response = graph.one(request, `${HT}resp`)!;
  return {
    method: graph.one(request, `${HT}methodName`)!.value,
    path: graph.one(request, `${HT}absolutePath`)!.value,
    headers: readHeaders(graph, request),
    body: readBody(graph, request),
    expected: {
      statuses: graph.all(response, `${MF}expectedStatus`).map((t) => statusOf(t.value.replace(HTS, ''))),
      location: graph.one(response, `${MF}expectedLocation`)?.value,
      headers: readHeaders(graph, response),
      body: readBody(graph, response),
    },
  };
}

function statusOf(name: string): string {
  const klass = /^StatusCode(\dxx)$/.exec(name);
  if (klass) return klass[1]!;
  const code = STATUS_CODES[name];
  if (!code) throw new Error(`unknown status ${name}`);
  return code;
}

function readHeaders(graph: Graph, subject: Term): Record<string, string> {
  const list = graph.one(subject, `${HT}headers`);
  const headers: Record<string, string> = {};
  if (!list) return headers;
  for (const header of graph.list(list)) {
    headers[graph.one(header, `${HT}fieldName`)!.value.toLowerCase()] = graph.one(header, `${HT}fieldValue`)!.value;
  }
  return headers;
}

function readBody(graph: Graph, subject: Term): string | undefined {
  const body = graph.one(subject, `${HT}body`);
  return body ? graph.one(body, `${CNT}chars`)?.value : undefined;
}

class Graph {
  private readonly bySubject = new Map<string, Quad[]>();
  constructor(quads: Quad[]) {
    for (const quad of quads) {
      const key = quad.subject.termType + quad.subject.value;
      const list = this.bySubject.get(key);
      if (list) list.push(quad);
      else this.bySubject.set(key, [quad]);
    }
  }

  all(subject: Term, predicate: string): Term[] {
    return (this.bySubject.get(subject.termType + subject.value) ?? []).filter((q) => q.predicate.value === predicate).map((q) => q.object);
  }

  one(subject: Term, predicate: string): Term | undefined {
    return this.all(subject, predicate)[0];
  }

  list(head: Term): Term[] {
    const items: Term[] = [];
    for (let node = head; node.value !== `${RDF}nil`; node = this.one(node, `${RDF}rest`)!) items.push(this.one(node, `${RDF}first`)!);
    return items;
  }
}
