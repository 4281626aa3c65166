/**
 * SpareConnections against a loopback TCP server: a connection opened ahead or kept after a request
 * is handed to exactly one request, and one that went bad while it waited (idle too long, closed or
 * written to by the remote, never connected) is given up without anyone seeing an error.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SpareConnections } from './remote-spare-connections.js';

/** A TCP server that keeps every connection open and remembers them. */
class Listener {
  readonly accepted: Socket[] = [];
  onConnection: (socket: Socket) => void = () => undefined;
  private readonly server: Server = createServer((socket) => {
    this.accepted.push(socket);
    socket.on('error', () => undefined);
    this.onConnection(socket);
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get open(): number {
    return this.accepted.filter((s) => !s.destroyed && !s.readableEnded).length;
  }

  async stop(): Promise<void> {
    for (const socket of this.accepted) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('SpareConnections', () => {
  const listener = new Listener();
  let port = 0;
  const opener = (): Socket => connect({ host: '127.0.0.1', port });

  before(async () => {
    port = await listener.start();
  });
  after(() => listener.stop());

  it('has nothing to hand out until it is asked to open one, then hands it out once', async () => {
    const spares = new SpareConnections(opener);
    assert.equal(spares.take(), undefined);
    const before = listener.accepted.length;
    spares.replenish();
    spares.replenish();
    await until(() => listener.accepted.length === before + 1, 'the spare is accepted');
    assert.equal(spares.ready, 1);
    const socket = spares.take();
    assert.ok(socket);
    assert.equal(spares.ready, 0);
    assert.equal(spares.take(), undefined);
    // The request owns it now: the spare's idle time-out no longer applies to it.
    assert.ok(!socket.timeout);
    socket.destroy();
    spares.close();
  });

  it('hands out a connection still being opened (it is ahead of a new one all the same)', () => {
    const spares = new SpareConnections(opener);
    spares.replenish();
    const socket = spares.take();
    assert.ok(socket?.connecting);
    socket.destroy();
  });

  it('gives up a spare left unused for its idle time', async () => {
    const spares = new SpareConnections(opener, 50);
    spares.replenish();
    const accepted = listener.accepted.length;
    await until(() => listener.accepted.length === accepted + 1, 'the spare is accepted');
    const serverSide = listener.accepted.at(-1)!;
    await until(() => serverSide.readableEnded || serverSide.destroyed, 'the remote sees the spare closed');
    assert.equal(spares.ready, 0);
  });

  it('gives up a spare that the remote closes', async () => {
    listener.onConnection = (socket) => socket.end();
    try {
      const spares = new SpareConnections(opener);
      spares.replenish();
      await until(() => spares.ready === 0, 'the spare is dropped');
      assert.equal(spares.take(), undefined);
    } finally {
      listener.onConnection = () => undefined;
    }
  });

  it('does not hand out a spare on which the remote sent something (it would be read as our answer)', async () => {
    let written = false;
    listener.onConnection = (socket) => socket.write('HTTP/1.1 408 Request Timeout\r\n\r\n', () => (written = true));
    try {
      const spares = new SpareConnections(opener);
      spares.replenish();
      await until(() => written, 'the remote has written');
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(spares.take(), undefined);
    } finally {
      listener.onConnection = () => undefined;
    }
  });

  it('shrugs off a spare that cannot connect: no error surfaces, there is just no spare', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const spares = new SpareConnections(() => connect({ host: '127.0.0.1', port: deadPort }));
    spares.replenish();
    await until(() => spares.ready === 0, 'the failed spare is dropped');
  });

  it('closes its spare and opens no other once closed', async () => {
    const spares = new SpareConnections(opener);
    spares.replenish();
    const accepted = listener.accepted.length;
    await until(() => listener.accepted.length === accepted + 1, 'the spare is accepted');
    spares.close();
    const serverSide = listener.accepted.at(-1)!;
    await until(() => serverSide.readableEnded || serverSide.destroyed, 'the remote sees the spare closed');
    spares.replenish();
    assert.equal(spares.ready, 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(listener.accepted.length, accepted + 1);
  });

  it('hands out kept connections, the one kept last first, up to its limit; opens none ahead while one is kept', async () => {
    const spares = new SpareConnections(opener, 2_000, 2);
    const before = listener.accepted.length;
    const sockets = [opener(), opener(), opener()];
    await until(() => listener.accepted.length === before + 3, 'the connections are accepted');
    for (const socket of sockets) spares.keep(socket);
    assert.equal(spares.ready, 2);
    assert.ok(sockets[2]!.destroyed, 'the one past the limit is closed');
    spares.replenish();
    assert.equal(listener.accepted.length, before + 3);
    assert.equal(spares.take(), sockets[1]);
    assert.equal(spares.take(), sockets[0]);
    assert.equal(spares.take(), undefined);
    for (const socket of sockets) socket.destroy();
    spares.close();
  });

  it('drops a kept connection that the remote closes, and passes over a dead one', async () => {
    const spares = new SpareConnections(opener);
    const before = listener.accepted.length;
    const sockets = [opener(), opener()];
    await until(() => listener.accepted.length === before + 2, 'the connections are accepted');
    for (const socket of sockets) spares.keep(socket);
    listener.accepted[before + 1]!.end();
    await until(() => spares.ready === 1, 'the closed one is dropped');
    assert.equal(spares.take(), sockets[0]);
    sockets[0]!.destroy();
    spares.close();
  });
});
