/**
 * Errors every layer may raise, each with the HTTP status the server answers it with. The server
 * maps by class, so lower layers never talk HTTP.
 */
export class QuiverError extends Error {
  readonly status: number = 500;
}

/** A query or update that does not parse; line and column are 1-based. */
export class SyntaxError extends QuiverError {
  override readonly status = 400;
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(line !== undefined ? `${message} (line ${line}, column ${column})` : message);
    this.name = 'SyntaxError';
  }
}

/** A request that parses but breaks a rule of the protocol or of the language (e.g. a bad IRI). */
export class ProtocolError extends QuiverError {
  override readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Evaluation failed: a failed update operation, an unreachable SERVICE, a broken LOAD. */
export class EvaluationError extends QuiverError {
  override readonly status = 500;
  constructor(message: string) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/** The request ran past its time limit and was stopped. */
export class TimeoutError extends QuiverError {
  override readonly status = 504;
  constructor(message = 'the request ran past its time limit') {
    super(message);
    this.name = 'TimeoutError';
  }
}

/** The request was cancelled (its client went away); nobody reads the answer. */
export class CancelledError extends QuiverError {
  override readonly status = 499;
  constructor(message = 'the request was cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** A query exceeded its memory budget (sorting, grouping, hash tables). */
export class ResourceLimitError extends QuiverError {
  override readonly status = 500;
  constructor(message: string) {
    super(message);
    this.name = 'ResourceLimitError';
  }
}

/** The server has no room for the request now; try again later. */
export class OverloadedError extends QuiverError {
  override readonly status = 503;
  constructor(message = 'the server is busy; try again later', readonly retryAfterSeconds = 1) {
    super(message);
    this.name = 'OverloadedError';
  }
}

/**
 * The store could not write because its disk (or its LMDB map) is full. Nothing of the failed
 * write was kept; writes succeed again once there is room. Answered 507 Insufficient Storage.
 */
export class StorageFullError extends QuiverError {
  override readonly status = 507;
  constructor(message: string) {
    super(message);
    this.name = 'StorageFullError';
  }
}
