/**
 * A syntax error in an RDF document, with its line (and column where the parser knows it).
 */
import { SparqlSyntaxError } from '../errors.js';

export class RdfSyntaxError extends SparqlSyntaxError {
  constructor(message: string, line?: number, column?: number) {
    super(message, line, column);
    this.name = 'RdfSyntaxError';
    // The base class always mentions a column; ours may not know one.
    if (line !== undefined && column === undefined) this.message = `${message} (line ${line})`;
  }
}
