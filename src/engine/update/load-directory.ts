/**
 * LOAD of a local file (a file: IRI): only when the server names a load directory, and only files
 * that really lie under it. The IRI's path is checked as written first, so a path outside the
 * directory is refused without touching the file system (no way to probe which files exist); then
 * its real path, so a symbolic link inside the directory cannot lead out of it.
 *
 * Refusals are ProtocolErrors (400), like a LOAD on a server where LOAD is off; a file that is
 * missing or unreadable inside the directory is a failed LOAD (EvaluationError), like a 404 on the web.
 */
// fs.promises, not node:fs/promises: the bundled `quiver update` loads it only when a LOAD runs.
import { createReadStream, promises as fs } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EvaluationError, ProtocolError } from '../../errors.js';
import { parseRdf, rdfFormatForFileName } from '../../formats/index.js';
import type { Quad } from '../../rdf/index.js';
import { unreadableDocument } from './document-errors.js';

/** The quads of the file; `checkpoint` is called after each parsed batch, and may throw to stop. */
export async function readLoadDirectoryFile(iri: string, loadDirectory: string | undefined, checkpoint?: () => void): Promise<Quad[]> {
  if (loadDirectory === undefined) {
    throw new ProtocolError(`LOAD <${iri}> refused: this server reads no local files (it has no load directory)`);
  }
  const file = await permittedPath(iri, loadDirectory);
  const known = rdfFormatForFileName(file);
  if (!known) throw new EvaluationError(`LOAD <${iri}>: cannot tell the RDF format from the file name`);
  const quads: Quad[] = [];
  try {
    for await (const batch of parseRdf(createReadStream(file), known.format, { baseIri: iri, gzip: known.gzip })) {
      quads.push(...batch);
      checkpoint?.();
    }
  } catch (error) {
    throw unreadableDocument(iri, known.format, error);
  }
  return quads;
}

/** The real path of the file the IRI names, when it lies under the load directory. */
export async function permittedPath(iri: string, loadDirectory: string): Promise<string> {
  const refused = (why: string): ProtocolError => new ProtocolError(`LOAD <${iri}> refused: ${why}`);
  // URL parsing would quietly resolve them; a request that tries to climb out is refused as such.
  if (/\/(\.|%2e){2}(\/|[?#]|$)/i.test(iri)) {
    throw refused(`'..' is not allowed in a file path`);
  }
  let path: string;
  try {
    path = fileURLToPath(iri);
  } catch {
    throw refused('not a path on this machine');
  }
  const root = await fs.realpath(loadDirectory);
  if (!isUnder(path, resolve(loadDirectory)) && !isUnder(path, root)) throw refused('the file is outside the load directory');
  let real: string;
  try {
    real = await fs.realpath(path);
  } catch {
    throw new EvaluationError(`LOAD <${iri}>: no such file`);
  }
  if (!isUnder(real, root)) throw refused('the file is outside the load directory');
  if (!(await fs.stat(real)).isFile()) throw new EvaluationError(`LOAD <${iri}>: not a file`);
  return real;
}

function isUnder(path: string, directory: string): boolean {
  const rest = relative(directory, resolve(path));
  return rest !== '' && rest !== '..' && !rest.startsWith('..' + sep) && !isAbsolute(rest);
}
