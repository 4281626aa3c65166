/**
 * Graph Store Protocol writes on the writer thread. The document is parsed before the write
 * transaction opens (parsing is asynchronous; the transaction is not), then the whole change is
 * one transaction: a PUT whose document is bad changes nothing. The update time limit and the
 * client's going away stop it while it parses and while it writes (the write's checkpoint), and a
 * stopped write leaves nothing.
 */
import { createReadStream } from 'node:fs';
import { CancelledError, TimeoutError } from '../errors.js';
import { parseRdf } from '../formats/index.js';
import { namedNode, type Quad } from '../rdf/index.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreWriter, type TermId } from '../store/index.js';
import { patternOfKeys, removeMatching } from '../store/index.js';
import type { GraphWriteResult } from './sparql-service.js';
import type { GraphStoreMessage, RdfFile } from './worker-messages.js';

export async function runGraphStoreWrite(store: QuadStore, message: GraphStoreMessage, isCancelled: () => boolean): Promise<GraphWriteResult | boolean> {
  const checkStop = (): void => {
    if (isCancelled()) throw new CancelledError();
    if (Date.now() > message.deadline) throw new TimeoutError();
  };
  const stoppable = { checkpoint: checkStop };
  if (message.operation === 'delete') return store.write((writer) => deleteGraph(writer, message.graph), stoppable);
  if (message.operation === 'remove') return store.write((writer) => removeMatching(writer, (message.patterns ?? []).map(patternOfKeys)) > 0, stoppable);
  if (message.files?.length) return writeFiles(store, message, message.files, checkStop);
  const quads = await parseDocuments(message, checkStop);
  checkStop();
  if (message.operation === 'load' && message.graph === null) return store.write((writer) => addInTheirGraphs(writer, quads), stoppable);
  return store.write((writer) => {
    const graph = graphId(writer, message.graph);
    const existed = graph === DEFAULT_GRAPH_ID || writer.hasNamedGraph(graph);
    if (message.operation === 'put' && existed) writer.clearGraph(graph);
    if (graph !== DEFAULT_GRAPH_ID) writer.createGraph(graph);
    for (const quad of quads) {
      writer.add(writer.intern(quad.subject), writer.intern(quad.predicate), writer.intern(quad.object), graph);
    }
    return { created: !existed };
  }, stoppable);
}

/**
 * Files are parsed inside the transaction, batch by batch as they are read: a file of any size
 * takes bounded memory, and its load is still all or nothing (a stop or a syntax error aborts it).
 */
async function writeFiles(store: QuadStore, message: GraphStoreMessage, files: RdfFile[], checkStop: () => void): Promise<GraphWriteResult> {
  if (!store.writeAsync) throw new Error('this store cannot hold a transaction open across a streamed load');
  return store.writeAsync(async (writer) => {
    let created = false;
    // 'post' to a graph puts every quad there; 'load' without one keeps each quad's own graph.
    const target = message.operation === 'load' && message.graph === null ? undefined : graphId(writer, message.graph);
    if (target !== undefined && target !== DEFAULT_GRAPH_ID) created = writer.createGraph(target);
    for (const file of files) {
      const batches = parseRdf(createReadStream(file.path), file.contentType, { baseIri: file.baseIri, gzip: file.gzip });
      for await (const batch of batches) {
        checkStop();
        if (target === undefined) created = addInTheirGraphs(writer, batch).created || created;
        else for (const quad of batch) writer.add(writer.intern(quad.subject), writer.intern(quad.predicate), writer.intern(quad.object), target);
      }
    }
    checkStop();
    return { created };
  });
}

async function parseDocuments(message: GraphStoreMessage, checkStop: () => void): Promise<Quad[]> {
  const quads: Quad[] = [];
  for (const document of message.documents) {
    for await (const batch of parseRdf(document.text, document.contentType, { baseIri: document.baseIri })) {
      checkStop();
      for (const quad of batch) quads.push(quad);
    }
  }
  return quads;
}

/** A load into the store as a whole: a quad of a named graph creates that graph. */
function addInTheirGraphs(writer: StoreWriter, quads: Quad[]): GraphWriteResult {
  let created = false;
  for (const quad of quads) {
    let graph = DEFAULT_GRAPH_ID;
    if (quad.graph.termType !== 'DefaultGraph') {
      graph = writer.intern(quad.graph);
      if (!writer.hasNamedGraph(graph)) {
        writer.createGraph(graph);
        created = true;
      }
    }
    writer.add(writer.intern(quad.subject), writer.intern(quad.predicate), writer.intern(quad.object), graph);
  }
  return { created };
}

function graphId(writer: StoreWriter, graph: string | null): TermId {
  return graph === null ? DEFAULT_GRAPH_ID : writer.intern(namedNode(graph));
}

function deleteGraph(writer: StoreWriter, graph: string | null): boolean {
  if (graph === null) {
    writer.clearGraph(DEFAULT_GRAPH_ID);
    return true;
  }
  const id = writer.idOf(namedNode(graph));
  return id !== undefined && writer.dropGraph(id);
}
