import { QuiverError } from '../errors.js';

/**
 * The data cannot be written in the requested format (for example an RDF/XML predicate with no
 * valid QName). 406 because another format would carry it; after the response has started, the
 * server can only cut it short.
 */
export class SerializationError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'SerializationError';
  }
}
