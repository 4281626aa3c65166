/**
 * The contract between query results and the bytes on the wire. Every serializer streams: it turns
 * each batch into one text chunk for its sink as the batch arrives, so no serializer ever holds a
 * whole result.
 */
import type { Quad, SolutionRow } from '../rdf/index.js';

/** Where serializers put their text. One `write` per batch, so sinks need not coalesce. */
export interface TextSink {
  write(chunk: string): void;
}

/** SELECT and ASK results. */
export interface SolutionsSerializer {
  /** SELECT: the header. */
  begin(variables: string[]): void;
  /** Any number of times; a row holds one term (or undefined when unbound) per variable. */
  rows(batch: SolutionRow[]): void;
  /** The footer. */
  end(): void;
  /** ASK: the whole document in one call, instead of begin/rows/end. */
  boolean(value: boolean): void;
}

/** CONSTRUCT and DESCRIBE results, and dumps. */
export interface QuadsSerializer {
  /** Prefixes (name → namespace IRI) the output may use to abbreviate IRIs. */
  begin(prefixes: Record<string, string>): void;
  quads(batch: Quad[]): void;
  end(): void;
}

export type ResultsFormat = 'json' | 'xml' | 'csv' | 'tsv' | 'html';
export type RdfFormat = 'turtle' | 'ntriples' | 'nquads' | 'trig' | 'jsonld' | 'rdfxml' | 'html';
/** The RDF formats that can also be read (HTML is output only). */
export type ParseableRdfFormat = Exclude<RdfFormat, 'html'>;

/** What the HTML page shows around the table. Every value is escaped before it is written. */
export interface HtmlOptions {
  /** The query text, shown above the results. */
  query?: string;
  /** Called once at the end, when the time taken is known. */
  elapsedMs?: () => number;
  /** The page title (default "Query results"). */
  title?: string;
  /** An external stylesheet; without it, a small style block is written only when `nonce` is given. */
  stylesheetHref?: string;
  /** An external script (never inline: the server sends a Content-Security-Policy). */
  scriptHref?: string;
  /** The CSP nonce for the style block and the script element. */
  nonce?: string;
  /**
   * A page to write the results into, instead of the standalone results page: its start, then the
   * table (or boolean) and the summary line, then its end. Both are markup, already escaped; the
   * query, title, style and script options are then the frame's business and not written.
   */
  frame?: { start: string; end: string };
}

/** A collecting sink, for tests and for callers that want the text of a small result. */
export class StringSink implements TextSink {
  text = '';
  write(chunk: string): void {
    this.text += chunk;
  }
}
