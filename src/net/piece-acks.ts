/**
 * Acknowledging the pieces of an answer at once (`quiver serve --remote-ack-pieces`), for remotes
 * that leave Nagle's algorithm on and write an answer in pieces (Virtuoso 7: the rest after
 * 32 KiB): each piece waits for the ACK of the one before, which Linux delays by 40 ms on a
 * kept-alive connection (BSBM Q2: 45 ms instead of 6). Data of ours carries the ACK at once, so
 * the client writes an empty line on the connection while the answer arrives.
 *
 * An empty line before a request is allowed (RFC 9112 §2.2: a server SHOULD skip at least one),
 * but not every server skips it: what becomes of a connection that carried one is the setting's.
 *
 * Not on a connection's first answer: Linux acknowledges at once what a new connection receives
 * (quick-ack mode) until it sees data go out soon after data came in — our next request on it. An
 * answer on a new connection then comes without a round trip through us (BSBM Q2: head and two
 * pieces, all acknowledged by the kernel), and, not nudged, its connection can be kept. Only after
 * QUICK_READS reads of a first answer (a large one) is it nudged too.
 */
import type { Socket } from 'node:net';

/**
 * - 'off': nothing is written but requests; a remote that writes in pieces with Nagle on waits
 *   40 ms per piece for the delayed ACK.
 * - 'close' (the default): acknowledged; a connection that carried an empty line is closed after
 *   its answer, so the line never comes before another request. Right for any remote; costs one
 *   more connection per answer acknowledged.
 * - 'reuse': acknowledged, and the connection carries the next request all the same. Only for
 *   remotes that skip empty lines before a request (Virtuoso does, hundreds of them): one that does
 *   not would misread the next request on that connection.
 */
export type AckPieces = 'off' | 'close' | 'reuse';

export const ACK_PIECES_SETTINGS: readonly AckPieces[] = ['off', 'close', 'reuse'];

export const DEFAULT_ACK_PIECES: AckPieces = 'close';

/**
 * Reads of a connection's first answer left to the kernel's quick ACKs before we nudge: a new
 * connection acknowledges its first segments at once (Linux quick-ack mode, at least two of them).
 */
const QUICK_READS = 3;

const EMPTY_LINE = Buffer.from('\r\n');

/** Connections that have carried an answer: the remote's pieces of the next one wait for delayed ACKs. */
const answered = new WeakSet<Socket>();

/** The acknowledgements of one answer on its connection. */
export class PieceAcks {
  /** Whether an empty line went out on the connection. */
  nudged = false;
  /** Reads of the answer so far, while the connection's ACKs may still be quick. */
  private reads: number;

  constructor(
    private readonly socket: Socket,
    private readonly setting: AckPieces,
  ) {
    this.reads = answered.has(socket) ? QUICK_READS : 0;
  }

  /**
   * A read of the answer, which is not complete yet, on a connection the remote keeps open (one
   * that closes it after the answer, and so sends what it holds back, could answer our bytes with a
   * reset and lose the rest).
   */
  read(): void {
    if (this.setting === 'off' || ++this.reads <= QUICK_READS) return;
    this.nudged = true;
    this.socket.write(EMPTY_LINE);
  }

  /** The answer was read to its end: whether its connection may carry another request. */
  complete(): boolean {
    answered.add(this.socket);
    return !this.nudged || this.setting === 'reuse';
  }
}
