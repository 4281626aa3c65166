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
}

/**
 * The format to answer with, or an error: 400 for an `output` the server does not know at all,
 * 406 for a known format that does not fit this result (csv for CONSTRUCT) or an unsatisfiable Accept.
 */
export function negotiate(
  candidates: Candidate[],
  output: string | undefined,
  accept: string | undefined,
  vocabulary: OutputVocabulary,
): Candidate {
  if (output !== undefined) return byOutputParameter(candidates, output, vocabulary);
  return byAcceptHeader(candidates, accept);
}

/** Checks an `output` value before the query runs, so a typo costs no evaluation. */
export function assertKnownOutput(output: string | undefined, vocabulary: OutputVocabulary): void {
  if (output === undefined) return;
  const value = output.trim().toLowerCase();
  const known = value.includes('/') ? vocabulary.mediaTypes.includes(value) : vocabulary.names.includes(value);
  if (!known) {
    throw new ProtocolError(
      `unknown output format '${output}'; allowed values: ${vocabulary.names.join(', ')} (or one of the media types ${vocabulary.mediaTypes.join(', ')})`,
    );
  }
}

function byOutputParameter(candidates: Candidate[], output: string, vocabulary: OutputVocabulary): Candidate {
  assertKnownOutput(output, vocabulary);
  const value = output.trim().toLowerCase();
  const found = value.includes('/')
    ? candidates.find((c) => c.mediaType === value || c.alsoAccepts.includes(value))
    : candidates.find((c) => c.outputNames.includes(value));
  if (!found) {
    throw notAcceptable(
      `output '${output}' does not fit this kind of result; possible here: ${candidates.flatMap((c) => c.outputNames.slice(0, 1)).join(', ')}`,
    );
  }
  return found;
}

function byAcceptHeader(candidates: Candidate[], accept: string | undefined): Candidate {
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
    throw notAcceptable(
      `none of the available formats is acceptable (Accept: ${accept}); available: ${candidates.map((c) => c.mediaType).join(', ')}`,
    );
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
