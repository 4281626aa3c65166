/**
 * Every curl command of README.md, run as written against a live `quiver serve` (only its address
 * changed), so that the README cannot drift from the server. A command counts when curl exits 0 with
 * --fail-with-body: the server answered 2xx.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../protocol/protocol-manifest.js';
import { requireInstalled, runClient } from './live-quiver.js';
import { startServerProcess, type ServerProcess } from '../reliability/server-process.js';

/** Where the README's commands send their requests: `npm start`'s default address. */
const README_ADDRESS = /(?:http:\/\/)?(?:127\.0\.0\.1|localhost):7878/g;

/** The curl commands of a Markdown text, in order: lines of code blocks, and inline code spans. */
function curlCommands(markdown: string): string[] {
  const commands: string[] = [];
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      if (line.trimStart().startsWith('curl ')) commands.push(line.trim());
      continue;
    }
    for (const match of line.matchAll(/`(curl [^`]+)`/g)) commands.push(match[1]!);
  }
  return commands;
}

let server: ServerProcess;
let commands: string[] = [];

before(async () => {
  requireInstalled('/usr/bin/curl', 'curl');
  commands = curlCommands(readFileSync(join(repoRoot(), 'README.md'), 'utf8'));
  server = await startServerProcess(['--memory', '--workers', '1']);
});
after(async () => server?.stop());

describe("the README's curl commands", () => {
  it('finds the commands of code blocks and inline code', () => {
    assert.deepEqual(curlCommands('text `curl -s a` and\n```sh\ncurl -s b   # comment\nnpm test\n```\n'), ['curl -s a', 'curl -s b   # comment']);
    assert.ok(commands.length >= 4, `${commands.length} commands`);
  });

  it('each succeeds against a live server, in the order the README gives them', async () => {
    for (const command of commands) {
      const live = command.replace(README_ADDRESS, server.origin).replace(/^curl /, 'curl --fail-with-body --show-error ');
      const { stdout } = await runClient('/bin/sh', ['-c', live]);
      // The first command inserts "hello"; every query after it finds it (or, for explain, plans it).
      if (/query=/.test(command)) assert.match(stdout, /hello|"resultRows":\s*1/, command);
    }
  });
});
