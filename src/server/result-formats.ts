/**
 * The formats layer's registry seen as negotiation candidates: which formats answer which kind of
 * result, under which `output` names and media types. Order is preference: the first is the
 * default, and it wins ties between equally acceptable formats.
 */
import { RDF_FORMATS as RDF_REGISTRY, RESULTS_FORMATS, type FormatInfo } from '../formats/registry.js';
import type { Candidate, OutputVocabulary } from './negotiation.js';

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
};

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
