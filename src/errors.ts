/**
 * Errors every layer may raise, and the library's callers catch by class. They know no HTTP: the
 * server alone maps each class to a status code (server/error-response.ts).
 */
export class QuiverError extends Error {}

/**
 * Marks Quiver's errors across copies of this module: the bundled `quiver` command
 * (scripts/build-cli.mjs) has its own copy of these classes next to the modules it leaves
 * unbundled, so `instanceof` alone would not know the other copy's errors.
 */
const QUIVER_ERROR = Symbol.for('quiver.error');
Object.defineProperty(QuiverError.prototype, QUIVER_ERROR, { value: true });

/** Whether `error` is a QuiverError of any copy of this module. */
export function isQuiverError(error: unknown): error is QuiverError {
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[QUIVER_ERROR] === true;
}

/** A query or update that does not parse; line and column are 1-based. */
export class SparqlSyntaxError extends QuiverError {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line !== undefined ? `${message} (line ${line}, column ${column})` : message);
    this.name = 'SyntaxError';
  }
}

/** A request that parses but breaks a rule of the protocol or of the language (e.g. a bad IRI). */
export class ProtocolError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Evaluation failed: a failed update operation, an unreachable SERVICE, a broken LOAD. */
export class EvaluationError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/** The request ran past its time limit and was stopped. */
export class TimeoutError extends QuiverError {
  constructor(message = 'the request ran past its time limit') {
    super(message);
    this.name = 'TimeoutError';
  }
}

/** The request was cancelled (its client went away); nobody reads the answer. */
export class CancelledError extends QuiverError {
  constructor(message = 'the request was cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** A query exceeded its memory budget (sorting, grouping, hash tables). */
export class ResourceLimitError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceLimitError';
  }
}

/** The server has no room for the request now; try again later. */
export class OverloadedError extends QuiverError {
  constructor(
    message = 'the server is busy; try again later',
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = 'OverloadedError';
  }
}

/**
 * The store could not write because its disk (or its LMDB map) is full. Nothing of the failed
 * write was kept; writes succeed again once there is room. Answered 507 Insufficient Storage.
 */
export class StorageFullError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'StorageFullError';
  }
}

/** The store cannot be opened: no store at the path (when one must exist), or the path is unusable. */
export class StoreOpenError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

/** A call on a store (or service) that has been closed. */
export class StoreClosedError extends QuiverError {
  constructor(message = 'the store is closed') {
    super(message);
    this.name = 'StoreClosedError';
  }
}
