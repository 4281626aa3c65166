import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultQueryMemory, formatByteSize, MAX_DEFAULT_QUERY_MEMORY, SERVE_HELP, serveSettings } from './serve-command.js';
import { UsageError } from './options.js';
import { inlineQueriesSetting } from '../service/local-service.js';

function settings(args: string[], env: NodeJS.ProcessEnv = {}): Exclude<ReturnType<typeof serveSettings>, 'help'> {
  const result = serveSettings(args, env);
  assert.notEqual(result, 'help');
  return result as Exclude<ReturnType<typeof serveSettings>, 'help'>;
}

describe('the memory budget of a query (--query-memory)', () => {
  it('defaults to 1 GiB, or a quarter of a heap limit under 4 GiB, in whole MiB', () => {
    assert.equal(defaultQueryMemory(8 * 2 ** 30), 2 ** 30);
    assert.equal(defaultQueryMemory(4 * 2 ** 30), 2 ** 30);
    assert.equal(defaultQueryMemory(2 * 2 ** 30), 512 * 2 ** 20);
    assert.equal(defaultQueryMemory(560 * 2 ** 20 + 12345), 140 * 2 ** 20);
    assert.equal(formatByteSize(2 ** 30), '1GiB');
    assert.equal(formatByteSize(140 * 2 ** 20), '140MiB');
  });

  it('applies the default when neither the flag nor QUIVER_QUERY_MEMORY is given', () => {
    const budget = settings(['--memory']).queryMemoryBudget;
    assert.equal(budget, defaultQueryMemory());
    assert.ok(budget! > 0 && budget! <= MAX_DEFAULT_QUERY_MEMORY);
  });

  it('takes the flag over the variable, the variable over the default; 0 switches it off', () => {
    assert.equal(settings(['--query-memory', '64MiB'], { QUIVER_QUERY_MEMORY: '2GiB' }).queryMemoryBudget, 64 * 2 ** 20);
    assert.equal(settings([], { QUIVER_QUERY_MEMORY: '2GiB' }).queryMemoryBudget, 2 * 2 ** 30);
    assert.equal(settings(['--query-memory', '0']).queryMemoryBudget, undefined);
    assert.throws(() => settings(['--query-memory', 'lots']), UsageError);
  });

  it('is listed by --help with its default and its variable', () => {
    const line = SERVE_HELP.split('\n').find((l) => l.includes('--query-memory'));
    assert.ok(line, SERVE_HELP);
    assert.ok(line.includes(`(default: ${formatByteSize(defaultQueryMemory())})`), line);
    assert.ok(line.includes('[QUIVER_QUERY_MEMORY]'), line);
  });
});

describe('plain query requests before Fastify (--direct-queries)', () => {
  it('is on by default; the flag beats QUIVER_DIRECT_QUERIES; anything but on or off is refused', () => {
    assert.equal(settings([]).server.directQueries, true);
    assert.equal(settings([], { QUIVER_DIRECT_QUERIES: 'off' }).server.directQueries, false);
    assert.equal(settings(['--direct-queries', 'on'], { QUIVER_DIRECT_QUERIES: 'off' }).server.directQueries, true);
    assert.throws(() => settings(['--direct-queries', 'maybe']), /on, off/);
    assert.ok(
      SERVE_HELP.split('\n').some((l) => l.includes('--direct-queries') && l.includes('[QUIVER_DIRECT_QUERIES]')),
      SERVE_HELP,
    );
  });
});

describe('main-thread evaluation of cheap queries (--inline-queries)', () => {
  it('is auto by default, and takes the flag over QUIVER_INLINE_QUERIES', () => {
    assert.equal(settings([]).inlineQueries, 'auto');
    assert.equal(settings([], { QUIVER_INLINE_QUERIES: 'off' }).inlineQueries, 'off');
    assert.equal(settings(['--inline-queries', 'always'], { QUIVER_INLINE_QUERIES: 'off' }).inlineQueries, 'always');
  });

  it('refuses a mode it does not know', () => {
    assert.throws(() => settings(['--inline-queries', 'sometimes']), /auto, idle, always, off/);
  });

  it('maps each mode to the service setting: off never, the others as when', () => {
    assert.equal(inlineQueriesSetting('off'), false);
    for (const when of ['auto', 'idle', 'always'] as const) assert.deepEqual(inlineQueriesSetting(when), { when });
  });
});

describe('the time a request may take to arrive (--body-timeout)', () => {
  it('is 30 s by default, and takes the flag over QUIVER_BODY_TIMEOUT', () => {
    assert.equal(settings([]).server.bodyTimeoutMs, 30_000);
    assert.equal(settings([], { QUIVER_BODY_TIMEOUT: '5' }).server.bodyTimeoutMs, 5_000);
    assert.equal(settings(['--body-timeout', '0.5'], { QUIVER_BODY_TIMEOUT: '5' }).server.bodyTimeoutMs, 500);
  });

  it('must be positive: no setting holds connections open without end', () => {
    assert.throws(() => settings(['--body-timeout', '0']), UsageError);
  });
});

describe('acknowledging the pieces of a remote answer (--remote-ack-pieces)', () => {
  const remote = ['--remote', 'http://127.0.0.1:8890/sparql'];

  it("leaves it to the service's default unless given; takes the flag over QUIVER_REMOTE_ACK_PIECES", () => {
    assert.equal(settings(remote).remote!.ackPieces, undefined);
    assert.equal(settings(remote, { QUIVER_REMOTE_ACK_PIECES: 'reuse' }).remote!.ackPieces, 'reuse');
    assert.equal(settings([...remote, '--remote-ack-pieces', 'off'], { QUIVER_REMOTE_ACK_PIECES: 'reuse' }).remote!.ackPieces, 'off');
    assert.equal(settings([...remote, '--remote-ack-pieces', 'Close']).remote!.ackPieces, 'close');
    assert.ok(
      SERVE_HELP.split('\n').some((l) => l.includes('--remote-ack-pieces') && l.includes('[QUIVER_REMOTE_ACK_PIECES]')),
      SERVE_HELP,
    );
  });

  it('refuses a setting it does not know, and the flag without --remote', () => {
    assert.throws(() => settings([...remote, '--remote-ack-pieces', 'virtuoso']), /off, close, reuse/);
    assert.throws(() => settings(['--remote-ack-pieces', 'reuse']), /needs --remote/);
  });
});
