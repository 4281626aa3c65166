/**
 * Choosing the response format: the `output` parameter first (a short name or a media type), then
 * the Accept header with its q-values, then the default (the first candidate). Candidates are listed
 * in the server's order of preference, which also breaks ties between equally acceptable formats.
 */
import { ProtocolError } from '../errors.js';
import { notAcceptable } from './http-error.js';
import { parseAccept, qualityOf } from './media-type.js';

export interface Candidate {
  /** What the caller acts on (a format name of the formats layer, or a page). */
  id: string;
  /** The media type the response is sent with. */
  mediaType: string;
  /** Other media types a client may name for it (e.g. application/json). */
  alsoAccepts: string[];
  /** Values of `output` that select it (e.g. 'json', 'xml'). */
  outputNames: string[];
}

export interface OutputVocabulary {
  /** Every short name `output` accepts for some kind of result (listed in the 400 message). */
  names: string[];
  /** Every media type `output` accepts for some kind of result. */
  mediaTypes: string[];
  /**
   * The candidates of each kind of result (SELECT/ASK, CONSTRUCT/DESCRIBE): values that name one
   * format of some kind ask for the same thing (`xml` and `application/rdf+xml`, for CONSTRUCT).
   */
  kinds: readonly (readonly Candidate[])[];
}

/**
 * The format to answer with, or an error. `outputs` are the values of the format parameters
 * (`output` and its aliases, see protocol-params.ts): empty, the Accept header decides. A value the
 * server does not know at all, or values that name different formats, are a 400; a known format
 * that does not fit this result (csv for CONSTRUCT) or an unsatisfiable Accept is a 406.
 */
export function negotiate(candidates: readonly Candidate[], outputs: readonly string[], accept: string | undefined, vocabulary: OutputVocabulary): Candidate {
  if (outputs.length > 0) return byOutputParameters(candidates, outputs, vocabulary);
  return byAcceptHeader(candidates, accept);
}

/**
 * Checks the format parameters before the query runs, so that a typo or a contradiction costs no
 * evaluation: every value must be known, and all of them must name one format for some kind of result.
 */
export function assertPossibleOutput(outputs: readonly string[], vocabulary: OutputVocabulary): void {
  for (const value of outputs) assertKnownOutput(value, vocabulary);
  if (outputs.length > 1 && !vocabulary.kinds.some((kind) => oneCandidateNamedBy(kind, outputs) !== undefined)) {
    throw new ProtocolError(
      `the parameters output, format and results ask for different result formats (${outputs.map((v) => `'${v}'`).join(', ')}); name one`,
    );
  }
}

function assertKnownOutput(value: string, vocabulary: OutputVocabulary): void {
  const known = alternativesOf(value).some((name) => (name.includes('/') ? vocabulary.mediaTypes : vocabulary.names).includes(name));
  if (!known) {
    throw new ProtocolError(
      `unknown output format '${value}'; allowed values: ${vocabulary.names.join(', ')} (or one of the media types ${vocabulary.mediaTypes.join(', ')})`,
    );
  }
}

function byOutputParameters(candidates: readonly Candidate[], outputs: readonly string[], vocabulary: OutputVocabulary): Candidate {
  assertPossibleOutput(outputs, vocabulary);
  const misfit = outputs.find((value) => candidateNamedBy(candidates, value) === undefined);
  const found = misfit === undefined ? oneCandidateNamedBy(candidates, outputs) : undefined;
  if (!found) {
    const what = misfit === undefined ? `the formats ${outputs.map((v) => `'${v}'`).join(', ')} do` : `output '${misfit}' does`;
    throw notAcceptable(`${what} not fit this kind of result; possible here: ${candidates.flatMap((c) => c.outputNames.slice(0, 1)).join(', ')}`);
  }
  return found;
}

/** The candidate every value names, when they all name the same one. */
function oneCandidateNamedBy(candidates: readonly Candidate[], outputs: readonly string[]): Candidate | undefined {
  const named = new Set(outputs.map((value) => candidateNamedBy(candidates, value)));
  const [only] = named;
  return named.size === 1 ? only : undefined;
}

/** The candidate a value names: a short name or a media type, or the first of a comma-separated list that is one. */
function candidateNamedBy(candidates: readonly Candidate[], value: string): Candidate | undefined {
  for (const name of alternativesOf(value)) {
    const found = name.includes('/')
      ? candidates.find((c) => c.mediaType === name || c.alsoAccepts.includes(name))
      : candidates.find((c) => c.outputNames.includes(name));
    if (found) return found;
  }
  return undefined;
}

/**
 * A value's names, lower case, without media type parameters. SPARQLWrapper sends its Accept list
 * as a value (`application/ld+json,application/x-json+ld`): each entry is an alternative.
 */
function alternativesOf(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.split(';')[0]!.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** Whether the format parameters ask for HTML (all of them), or else the Accept header is a browser's. */
export function wantsHtml(outputs: readonly string[], accept: string | undefined): boolean {
  if (outputs.length > 0) return outputs.every(namesHtml);
  return prefersHtml(accept);
}

function namesHtml(value: string): boolean {
  const name = alternativesOf(value)[0];
  return name === 'html' || name === 'text/html';
}

function byAcceptHeader(candidates: readonly Candidate[], accept: string | undefined): Candidate {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return candidates[0]!;
  let best: Candidate | undefined;
  let bestQ = 0;
  for (const candidate of candidates) {
    const q = Math.max(...[candidate.mediaType, ...candidate.alsoAccepts].map((type) => qualityOf(type, ranges)));
    if (q > bestQ) {
      best = candidate;
      bestQ = q;
    }
  }
  if (!best) {
    throw notAcceptable(`none of the available formats is acceptable (Accept: ${accept}); available: ${candidates.map((c) => c.mediaType).join(', ')}`);
  }
  return best;
}

/**
 * True when the Accept header names text/html explicitly and ranks it at least as high as every
 * other named type: a browser. A bare * / * (curl, scripts) is not a browser.
 */
export function prefersHtml(accept: string | undefined): boolean {
  const ranges = parseAccept(accept);
  const named = ranges.some((r) => r.type === 'text' && r.subtype === 'html');
  const html = qualityOf('text/html', ranges);
  if (!named || html === 0) return false;
  return ranges.every((r) => r.specificity < 2 || r.q <= html || (r.type === 'text' && r.subtype === 'html'));
}
