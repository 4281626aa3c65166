/**
 * Errors only the HTTP layer raises (wrong media type, 405, 406, ...). Lower layers use the classes
 * of src/errors.ts, which error-response.ts maps to statuses; these carry theirs.
 */
import { QuiverError } from '../errors.js';

export class HttpError extends QuiverError {
  readonly status: number;
  constructor(
    status: number,
    message: string,
    /** Extra response headers, e.g. Allow for a 405. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.name = 'HttpError';
  }
}

export function unsupportedMediaType(message: string): HttpError {
  return new HttpError(415, message);
}

export function notAcceptable(message: string): HttpError {
  return new HttpError(406, message);
}
