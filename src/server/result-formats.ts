/**
 * The formats layer's registry seen as negotiation candidates: which formats answer which kind of
 * result, under which `output` names and media types. Order is preference: the first is the
 * default, and it wins ties between equally acceptable formats.
 */
import { RDF_FORMATS as RDF_REGISTRY, RESULTS_FORMATS, type FormatInfo } from '../formats/index.js';
import { BoundedMap } from '../bounded-map.js';
import { negotiate, type Candidate, type OutputVocabulary } from './negotiation.js';

export interface ResultFormat extends Candidate {
  /** Format name of the formats layer. */
  id: string;
  /** For Content-Disposition: result.<extension>. */
  extension: string;
}

function candidateOf(info: FormatInfo): ResultFormat {
  return {
    id: info.format,
    mediaType: info.mediaTypes[0]!,
    alsoAccepts: info.mediaTypes.slice(1),
    outputNames: [...info.outputNames],
    extension: info.extension,
  };
}

/** SELECT and ASK. */
export const SOLUTION_FORMATS: ResultFormat[] = RESULTS_FORMATS.map(candidateOf);

/** CONSTRUCT and DESCRIBE. */
export const QUAD_FORMATS: ResultFormat[] = RDF_REGISTRY.map(candidateOf);

/** The RDF formats proper (no HTML), Turtle first: what the service description is offered in. */
export const RDF_FORMATS: ResultFormat[] = QUAD_FORMATS.filter((f) => !isHtml(f));

export const OUTPUT_VOCABULARY: OutputVocabulary = {
  names: unique([...SOLUTION_FORMATS, ...QUAD_FORMATS].flatMap((f) => f.outputNames)),
  mediaTypes: unique([...SOLUTION_FORMATS, ...QUAD_FORMATS].flatMap((f) => [f.mediaType, ...f.alsoAccepts])),
  kinds: [SOLUTION_FORMATS, QUAD_FORMATS],
};

/** Which candidates a query result is answered from: SELECT/ASK or CONSTRUCT/DESCRIBE. */
export type ResultKind = 'solutions' | 'quads';

/** Headers are the client's to choose: caches of negotiations are bounded. */
export const MAX_CACHED_NEGOTIATIONS = 256;
/**
 * Clients send the same few Accept headers again and again: their outcome is kept, a failure (a 406
 * or 400 to come) as null, since asking whether a kind can be answered at all is costly to repeat.
 */
const negotiated = new BoundedMap<string, ResultFormat | null>(MAX_CACHED_NEGOTIATIONS);

/** The format for a result of this kind, as `negotiate` decides it (and with its errors). */
export function negotiateResultFormat(kind: ResultKind, outputs: readonly string[], accept: string | undefined): ResultFormat {
  const key = `${kind}\n${negotiationKey(outputs, accept)}`;
  const known = negotiated.get(key);
  if (known) return known;
  try {
    const format = negotiate(kind === 'quads' ? QUAD_FORMATS : SOLUTION_FORMATS, outputs, accept, OUTPUT_VOCABULARY) as ResultFormat;
    negotiated.set(key, format);
    return format;
  } catch (error) {
    negotiated.set(key, null);
    throw error;
  }
}

/** The format negotiation would choose for this kind, or undefined where it would fail. */
export function acceptableResultFormat(kind: ResultKind, outputs: readonly string[], accept: string | undefined): ResultFormat | undefined {
  const known = negotiated.get(`${kind}\n${negotiationKey(outputs, accept)}`);
  if (known !== undefined) return known ?? undefined;
  try {
    return negotiateResultFormat(kind, outputs, accept);
  } catch {
    return undefined;
  }
}

/** What negotiation depends on, as one string (an absent Accept differs from an empty one). */
export function negotiationKey(outputs: readonly string[], accept: string | undefined): string {
  return `${JSON.stringify(outputs)}\n${accept ?? '\u0000'}`;
}

export function isHtml(format: Candidate): boolean {
  return format.mediaType === 'text/html';
}

/** The Content-Type of a response in this format: every text response says charset=utf-8. */
export function contentTypeOf(format: Candidate): string {
  return `${format.mediaType}; charset=utf-8`;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
