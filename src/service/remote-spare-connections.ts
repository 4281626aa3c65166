/**
 * Connections to the remote ready for the next request: one opened ahead (when no other is ready),
 * and kept-alive ones that have served a request and may serve another. Opening a connection (the
 * TCP handshake, a turn of our event loop until it is connected, the remote accepting it) would
 * otherwise lie on each request's critical path. The endpoint keeps the connection an answer came on
 * when it can serve again, or opens one ahead once an answer has been read; the next request takes
 * the one readied last.
 *
 * A spare is given up when it has been idle for `idleMs` (servers close connections that send no
 * request after some seconds: a spare that old could be closed under our request), when the remote
 * closes it or sends anything on it, when it fails to connect, and when the endpoint closes. An idle
 * spare does not keep the process alive.
 */
import type { Socket } from 'node:net';

/** How long an unused spare is kept: well under the idle time-outs of common servers (5 s and more). */
export const SPARE_IDLE_MS = 2_000;

/** Kept-alive connections held at most (as many as requests ran at once, up to this). */
export const MAX_SPARES = 8;

interface Spare {
  socket: Socket;
  drop: () => void;
}

export class SpareConnections {
  /** Readied last at the end. */
  private readonly spares: Spare[] = [];
  private closed = false;

  /** `open` starts a connection to the remote (net.connect with its host and port). */
  constructor(
    private readonly open: () => Socket,
    private readonly idleMs = SPARE_IDLE_MS,
    private readonly max = MAX_SPARES,
  ) {}

  /** How many spares are there (connected or still connecting). */
  get ready(): number {
    return this.spares.length;
  }

  /**
   * The spare readied last, for a request that will own it from now on; undefined when there is
   * none usable (one the remote sent something on or hung up meanwhile is closed on the way).
   */
  take(): Socket | undefined {
    for (let spare = this.spares.pop(); spare !== undefined; spare = this.spares.pop()) {
      const { socket } = spare;
      forget(spare);
      if (socket.destroyed || socket.readableEnded || socket.readableLength > 0 || !socket.writable) {
        socket.on('error', ignore).destroy();
        continue;
      }
      socket.ref();
      return socket;
    }
    return undefined;
  }

  /** Opens a spare unless one is ready. A failure to connect only means no spare. */
  replenish(): void {
    if (this.spares.length > 0 || this.closed) return;
    let socket: Socket;
    try {
      socket = this.open();
    } catch {
      return;
    }
    this.hold(socket);
  }

  /** A connection that has served a request and may serve the next (closed if enough are ready). */
  keep(socket: Socket): void {
    if (this.closed || this.spares.length >= this.max) {
      socket.on('error', ignore).destroy();
      return;
    }
    this.hold(socket);
  }

  /** Closes the spares and readies no other. */
  close(): void {
    this.closed = true;
    for (let spare = this.spares.pop(); spare !== undefined; spare = this.spares.pop()) {
      forget(spare);
      spare.socket.on('error', ignore).destroy();
    }
  }

  private hold(socket: Socket): void {
    const spare: Spare = {
      socket,
      drop: () => {
        const at = this.spares.indexOf(spare);
        if (at >= 0) this.spares.splice(at, 1);
        forget(spare);
        // Given up: whatever it still reports is of no interest (and must not go unhandled).
        socket.on('error', ignore).destroy();
      },
    };
    socket.setTimeout(this.idleMs);
    socket.on('timeout', spare.drop).on('error', spare.drop).on('end', spare.drop).on('close', spare.drop);
    socket.unref();
    this.spares.push(spare);
  }
}

function forget({ socket, drop }: Spare): void {
  socket.setTimeout(0);
  socket.off('timeout', drop).off('error', drop).off('end', drop).off('close', drop);
}

function ignore(): void {}
