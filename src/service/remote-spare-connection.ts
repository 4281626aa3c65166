/**
 * A connection to the remote opened ahead of the request that will use it. Over plain http every
 * request has a connection of its own (see ConnectionPolicy), and opening one (the TCP handshake,
 * a turn of our event loop until it is connected, the remote accepting it) would otherwise lie on
 * each request's critical path. One spare is kept: the endpoint opens it once an answer has been
 * read, and the next request takes it.
 *
 * A spare is given up when it has been idle for `idleMs` (servers close connections that send no
 * request after some seconds: a spare that old could be closed under our request), when the remote
 * closes it or sends anything on it, when it fails to connect, and when the endpoint closes. An idle
 * spare does not keep the process alive.
 */
import type { Socket } from 'node:net';

/** How long an unused spare is kept: well under the idle time-outs of common servers (5 s and more). */
export const SPARE_IDLE_MS = 2_000;

export class SpareConnection {
  private spare: Socket | undefined;
  private dropSpare: (() => void) | undefined;
  private closed = false;

  /** `open` starts a connection to the remote (net.connect with its host and port). */
  constructor(
    private readonly open: () => Socket,
    private readonly idleMs = SPARE_IDLE_MS,
  ) {}

  /** Whether a spare is there (connected or still connecting). */
  get ready(): boolean {
    return this.spare !== undefined;
  }

  /**
   * The spare, for a request that will own it from now on; undefined when there is none, or when
   * the one there turned out unusable (the remote sent something or hung up meanwhile).
   */
  take(): Socket | undefined {
    const socket = this.spare;
    if (socket === undefined) return undefined;
    this.forget(socket);
    if (socket.destroyed || socket.readableEnded || socket.readableLength > 0 || !socket.writable) {
      socket.on('error', ignore).destroy();
      return undefined;
    }
    socket.ref();
    return socket;
  }

  /** Opens a spare unless there is one. A failure to connect only means no spare. */
  replenish(): void {
    if (this.spare !== undefined || this.closed) return;
    let socket: Socket;
    try {
      socket = this.open();
    } catch {
      return;
    }
    const drop = (): void => {
      if (this.spare === socket) this.forget(socket);
      // Given up: whatever it still reports is of no interest (and must not go unhandled).
      socket.on('error', ignore).destroy();
    };
    socket.setNoDelay(true);
    socket.setTimeout(this.idleMs);
    socket.on('timeout', drop).on('error', drop).on('end', drop).on('close', drop);
    socket.unref();
    this.spare = socket;
    this.dropSpare = drop;
  }

  /** Closes the spare and opens no other. */
  close(): void {
    this.closed = true;
    const socket = this.spare;
    if (socket === undefined) return;
    this.forget(socket);
    socket.on('error', ignore).destroy();
  }

  private forget(socket: Socket): void {
    const drop = this.dropSpare!;
    socket.setTimeout(0);
    socket.off('timeout', drop).off('error', drop).off('end', drop).off('close', drop);
    this.spare = undefined;
    this.dropSpare = undefined;
  }
}

function ignore(): void {}
