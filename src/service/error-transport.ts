/**
 * Errors cross the thread boundary as plain data (structured clone keeps neither the class nor
 * its extra fields), and are rebuilt on the main side with the class the server maps to a status.
 */
import {
  CancelledError,
  EvaluationError,
  OverloadedError,
  ProtocolError,
  QuiverError,
  ResourceLimitError,
  StorageFullError,
  StoreClosedError,
  StoreOpenError,
  SparqlSyntaxError,
  TimeoutError,
} from '../errors.js';

export interface SerializedError {
  name: string;
  message: string;
  line?: number;
  column?: number;
  retryAfterSeconds?: number;
  stack?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  if (isStackOverflow(error)) {
    // Only a request nested thousands deep gets here (parsing, planning or compiling recurse on it):
    // the client's request is at fault, and whichever stage ran out depends on the JIT's frames.
    return { name: 'ProtocolError', message: 'the request is nested too deeply (maximum call stack size exceeded)', stack: error.stack };
  }
  // Only our own classes keep their name: a native SyntaxError thrown deep inside a library (say,
  // JSON.parse on a document that LOAD fetched) is a failed evaluation, not a malformed request.
  const name = error instanceof QuiverError ? error.name : 'Error';
  const serialized: SerializedError = { name, message: error.message, stack: error.stack };
  if (error instanceof SparqlSyntaxError && error.column === undefined) {
    // A subclass (say, RdfSyntaxError of a parsed document) that knows the line only keeps its message.
    serialized.name = 'SyntaxError';
  } else if (error instanceof SparqlSyntaxError) {
    serialized.name = 'SyntaxError';
    serialized.message = messageWithoutPosition(error);
    serialized.line = error.line;
    serialized.column = error.column;
  }
  if (error instanceof OverloadedError) serialized.retryAfterSeconds = error.retryAfterSeconds;
  return serialized;
}

function isStackOverflow(error: Error): boolean {
  return error instanceof RangeError && error.message === 'Maximum call stack size exceeded';
}

/** SparqlSyntaxError's constructor appends the position to its message; strip it so it is not doubled. */
function messageWithoutPosition(error: SparqlSyntaxError): string {
  const suffix = ` (line ${error.line}, column ${error.column})`;
  return error.line !== undefined && error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
}

/**
 * The error a serialized one stands for. Anything that is not one of ours (a bug, a crash in a
 * library) becomes an EvaluationError: the client gets a 500 with the message either way.
 */
export function deserializeError(data: SerializedError): QuiverError {
  const error = rebuild(data);
  if (data.stack) error.stack = data.stack;
  return error;
}

function rebuild(data: SerializedError): QuiverError {
  switch (data.name) {
    case 'SyntaxError':
      return new SparqlSyntaxError(data.message, data.line, data.column);
    case 'ProtocolError':
      return new ProtocolError(data.message);
    case 'EvaluationError':
      return new EvaluationError(data.message);
    case 'TimeoutError':
      return new TimeoutError(data.message);
    case 'CancelledError':
      return new CancelledError(data.message);
    case 'ResourceLimitError':
      return new ResourceLimitError(data.message);
    case 'StorageFullError':
      return new StorageFullError(data.message);
    case 'StoreOpenError':
      return new StoreOpenError(data.message);
    case 'StoreClosedError':
      return new StoreClosedError(data.message);
    case 'OverloadedError':
      return new OverloadedError(data.message, data.retryAfterSeconds);
    default:
      return new EvaluationError(data.message);
  }
}
