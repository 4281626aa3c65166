import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SERVE_HELP, serveSettings } from './serve-command.js';
import { UsageError } from './options.js';

function fetchSettingsOf(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = serveSettings(['--memory', ...args], env);
  assert.notEqual(result, 'help');
  return (result as Exclude<typeof result, 'help'>).fetch;
}

describe('the serve flags of LOAD and SERVICE fetches', () => {
  it('default to SERVICE on, no target beyond the public internet, 64 MiB and 60 s', () => {
    assert.deepEqual(fetchSettingsOf([]), { allowService: true, fetchSettings: { allow: [], maxBytes: 64 * 2 ** 20, timeoutMs: 60_000 } });
  });

  it('read --no-service, --fetch-allow, --max-fetch-bytes and --fetch-timeout, or their variables', () => {
    const settings = fetchSettingsOf([
      '--no-service',
      '--fetch-allow',
      '127.0.0.1:8080, data.internal,10.0.0.0/8,[::1]:7878',
      '--max-fetch-bytes',
      '1MiB',
      '--fetch-timeout',
      '2.5',
    ]);
    assert.deepEqual(settings, {
      allowService: false,
      fetchSettings: { allow: ['127.0.0.1:8080', 'data.internal', '10.0.0.0/8', '[::1]:7878'], maxBytes: 2 ** 20, timeoutMs: 2500 },
    });
    assert.deepEqual(fetchSettingsOf([], { QUIVER_FETCH_ALLOW: '*', QUIVER_NO_SERVICE: '1' }).fetchSettings.allow, ['*']);
  });

  it('read --fetch-alias as IRI=URL pairs, or its variable', () => {
    const settings = fetchSettingsOf([
      '--fetch-alias',
      'http://example.org/sparql=http://127.0.0.1:8890/sparql, https://data.example/d.ttl=http://mirror.internal/d.ttl',
    ]);
    assert.deepEqual(settings.fetchSettings.aliases, {
      'http://example.org/sparql': 'http://127.0.0.1:8890/sparql',
      'https://data.example/d.ttl': 'http://mirror.internal/d.ttl',
    });
    assert.deepEqual(fetchSettingsOf([], { QUIVER_FETCH_ALIAS: 'http://a.example/=http://b.example/' }).fetchSettings.aliases, {
      'http://a.example/': 'http://b.example/',
    });
    assert.throws(
      () => fetchSettingsOf(['--fetch-alias', 'http://example.org/sparql']),
      (error: Error) => error instanceof UsageError && /--fetch-alias/.test(error.message),
    );
    assert.throws(() => fetchSettingsOf(['--fetch-alias', 'http://example.org/sparql=file:///etc/passwd']), UsageError);
  });

  it('refuse an allow list entry, a size or a time they cannot read', () => {
    assert.throws(
      () => fetchSettingsOf(['--fetch-allow', '10.0.0.0/40']),
      (error: Error) => error instanceof UsageError && /--fetch-allow: '10.0.0.0\/40'/.test(error.message),
    );
    assert.throws(() => fetchSettingsOf(['--max-fetch-bytes', 'lots']), UsageError);
    assert.throws(() => fetchSettingsOf(['--max-fetch-bytes', '0']), UsageError);
    assert.throws(() => fetchSettingsOf(['--fetch-timeout=0']), UsageError);
  });

  it('are listed by --help', () => {
    for (const flag of ['--no-service', '--fetch-allow', '--fetch-alias', '--max-fetch-bytes', '--fetch-timeout']) assert.ok(SERVE_HELP.includes(flag), flag);
  });
});
