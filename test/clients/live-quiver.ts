/**
 * What the client suites share: a real `quiver serve` in a child process holding a few people,
 * and the real clients run as child processes, each failing with the command that installs it
 * when it is missing (CI installs them all in .ci/run: a missing client is a failure, not a skip).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../protocol/protocol-manifest.js';
import { startServerProcess, type ServerProcess } from '../reliability/server-process.js';

const run = promisify(execFile);

export const EX = 'http://example.org/';

/** Alice (who knows Bob) and Bob, in the default graph: what every client reads back. */
export const PEOPLE = `PREFIX ex: <${EX}> INSERT DATA { ex:alice ex:name "Alice" ; ex:knows ex:bob . ex:bob ex:name "Bob" }`;

/** Debian's python3, which has Debian's Python packages (another python3 may come first on the PATH). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

export interface LiveQuiver {
  /** http://127.0.0.1:PORT */
  origin: string;
  server: ServerProcess;
  stop(): Promise<void>;
}

/** `quiver serve --memory` with PEOPLE in it. */
export async function startQuiverWithPeople(): Promise<LiveQuiver> {
  const server = await startServerProcess(['--memory', '--workers', '1']);
  await sparqlUpdate(server.origin, PEOPLE);
  return { origin: server.origin, server, stop: () => server.stop() };
}

export async function sparqlUpdate(origin: string, update: string): Promise<void> {
  const response = await fetch(`${origin}/sparql/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: update,
  });
  assert.equal(response.status, 200, await response.text());
}

/** ASK through the plain protocol, to check what a client wrote. */
export async function ask(origin: string, query: string): Promise<boolean> {
  const response = await fetch(`${origin}/sparql/select`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
    body: query,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { boolean: boolean }).boolean;
}

export interface ClientOutput {
  stdout: string;
  stderr: string;
}

/** Runs a client to its end; a non-zero exit fails with everything it printed. */
export async function runClient(command: string, args: string[], timeoutMs = 60_000): Promise<ClientOutput> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return { stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; signal?: unknown; stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed (${String(failure.code ?? failure.signal)})\nstdout: ${failure.stdout}\nstderr: ${failure.stderr}`, {
      cause: error,
    });
  }
}

/** Fails, naming the Debian package, when a file a client needs is not on this machine. */
export function requireInstalled(path: string, debianPackage: string): void {
  assert.ok(existsSync(path), `${path} is missing: install it with 'apt-get install -y ${debianPackage}' (.ci/run does)`);
}

/** Fails, naming the Debian packages, when Debian's python3 cannot import a module. */
export async function requirePythonModules(modules: string[], debianPackages: string[]): Promise<void> {
  requireInstalled(DEBIAN_PYTHON, 'python3');
  try {
    await run(DEBIAN_PYTHON, ['-c', `import ${modules.join(', ')}`]);
  } catch (error) {
    assert.fail(
      `${DEBIAN_PYTHON} cannot import ${modules.join(', ')}: install 'apt-get install -y ${debianPackages.join(' ')}' (.ci/run does)\n${(error as { stderr?: string }).stderr}`,
    );
  }
}

/** A file of test/clients/fixtures (the sources, not dist/: the Python scripts are not compiled). */
export function clientFixture(name: string): string {
  return join(repoRoot(), 'test', 'clients', 'fixtures', name);
}

/** The JSON objects a fixture script prints, one a line. */
export function jsonLines<T>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}
