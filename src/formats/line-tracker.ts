/**
 * A pass-through stream that remembers where lines start in the bytes it has passed on, so that a
 * parser which reports only a byte offset (the JSON tokenizer under jsonld-streaming-parser) can
 * still give a line and column. It keeps the last few chunks only: an offset further back than
 * that (rare: the parser works close behind the input) has no position.
 */
import { Transform, type TransformCallback } from 'node:stream';

interface ChunkRecord {
  start: number;
  linesBefore: number;
  bytes: Buffer;
}

const KEPT_CHUNKS = 64;
const NEWLINE = 0x0a;

export class LineTracker extends Transform {
  private readonly chunks: ChunkRecord[] = [];
  private bytesSeen = 0;
  private linesSeen = 0;

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunks.push({ start: this.bytesSeen, linesBefore: this.linesSeen, bytes });
    if (this.chunks.length > KEPT_CHUNKS) this.chunks.shift();
    this.bytesSeen += bytes.length;
    this.linesSeen += countNewlines(bytes, bytes.length);
    done(null, bytes);
  }

  /** 1-based line and column (in characters) of a byte offset, when they are still known. */
  position(offset: number): { line: number; column?: number } | undefined {
    for (let i = this.chunks.length - 1; i >= 0; i--) {
      const chunk = this.chunks[i]!;
      if (offset < chunk.start) continue;
      const within = Math.min(offset - chunk.start, chunk.bytes.length);
      const line = chunk.linesBefore + countNewlines(chunk.bytes, within) + 1;
      const lineStart = within > 0 ? chunk.bytes.lastIndexOf(NEWLINE, within - 1) + 1 : 0;
      // A line that began in an earlier chunk has no known start.
      if (lineStart === 0 && chunk.start > 0) return { line };
      return { line, column: chunk.bytes.subarray(lineStart, within).toString().length + 1 };
    }
    return undefined;
  }
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0 && i < end; i = bytes.indexOf(NEWLINE, i + 1)) count++;
  return count;
}
