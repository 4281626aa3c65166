/**
 * Stopping `quiver serve` with SIGTERM while a large result streams: the request in flight is
 * answered to its end, new connections are refused meanwhile, and the process exits 0 afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { CLI, removeDirectory, runCli, temporaryDirectory } from './load-helpers.js';

/** 300 x 300 rows: long enough to be in flight when the signal arrives. */
function crossJoinData(): string {
  let text = '';
  for (let i = 0; i < 300; i++) text += `<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`;
  return text;
}

function canConnect(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request(url, { method: 'GET', path: '/health', agent: false }, (response) => {
      response.resume();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
    probe.end();
  });
}

test('SIGTERM lets a streaming response finish and refuses new connections', { timeout: 120_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    assert.equal((await runCli(['load', '--store', store, '--quiet', '--format', 'ntriples', '-'], { stdin: crossJoinData() })).code, 0);
    const child = spawn(process.execPath, [CLI, 'serve', '--store', store, '--port', '0', '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    const exited = once(child, 'exit');
    // Whatever fails below, the server must not outlive the test.
    const cleanup = setTimeout(() => child.kill('SIGKILL'), 100_000);
    const query = 'SELECT ?a ?b WHERE { ?x <http://example.org/p> ?a . ?y <http://example.org/p> ?b }';
    const url = new URL(`${endpoint}/select?query=${encodeURIComponent(query)}`);
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const sent = request(url, { headers: { accept: 'text/tab-separated-values' }, agent: false }, resolve);
      sent.on('error', reject);
      sent.end();
    });
    assert.equal(response.statusCode, 200);
    // Read slowly at first, so the response is still streaming when the signal arrives.
    response.pause();
    process.kill(child.pid!, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await canConnect(new URL(endpoint)), false, 'a new connection was accepted after SIGTERM');
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.resume();
    await once(response, 'end');
    const lines = body.trimEnd().split('\n');
    assert.equal(lines.length, 1 + 300 * 300, 'the response in flight was cut short');
    const [code] = await exited;
    clearTimeout(cleanup);
    assert.equal(code, 0, output);
  } finally {
    removeDirectory(dir);
  }
});
