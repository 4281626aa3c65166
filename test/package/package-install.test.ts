/**
 * The package as a user gets it: `npm pack` gives a tarball, which is installed into a fresh
 * project; the README's library example is compiled there as a strict TypeScript program (against
 * the declarations the build emits, through the `exports` map) and run. A broken export map, a
 * missing declaration or a README example that no longer compiles fails here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The first ```ts block after the README's "Use as a library" heading. */
function libraryExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use as a library'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'the README has a TypeScript example under "Use as a library"');
  return match[1]!;
}

/** The version of a development dependency, so the project compiles with what this repository tests with. */
function devVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  return manifest.devDependencies[name]!;
}

/** Runs a command; a failure's message carries what it printed (tsc reports on stdout). */
function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

describe('the packed package, installed into a fresh project', { timeout: 300_000 }, () => {
  let project: string;
  before(() => {
    project = mkdtempSync(join(tmpdir(), 'quiver-package-'));
    run(NPM, ['pack', '--ignore-scripts', '--pack-destination', project], ROOT);
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-quiver', private: true, type: 'module' }));
    run(
      NPM,
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `./${tarball}`,
        `typescript@${devVersion('typescript')}`,
        `@types/node@${devVersion('@types/node')}`,
      ],
      project,
    );
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it('compiles the README example as strict TypeScript and runs it', () => {
    writeFileSync(join(project, 'example.ts'), libraryExample());
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          outDir: 'out',
        },
        files: ['example.ts'],
      }),
    );
    run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
    const output = run(process.execPath, [join('out', 'example.js')], project);
    assert.match(output, /knows: urn:alice/);
    assert.match(output, /ask: true/);
    assert.match(output, /construct: 1/);
    assert.match(output, /match: urn:alice/);
    assert.match(output, /<urn:bob> <urn:name> "Bob" <urn:people> \./);
    assert.match(output, /plan: \w+ 1/);
    assert.match(output, /syntax error at line 1 column \d+/);
  });

  it('gives the quiver command, with its version', () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(run(join(project, 'node_modules', '.bin', 'quiver'), ['--version'], project).trim(), `quiver ${version}`);
  });

  it('gives the bundled quiver command: an update and a query on a store, and usage errors of the unbundled commands', () => {
    const quiver = join(project, 'node_modules', '.bin', 'quiver');
    const store = join(project, 'store');
    run(quiver, ['update', '--store', store, 'INSERT DATA { <urn:a> <urn:b> "c" }'], project);
    assert.equal(run(quiver, ['query', '--store', store, '--format', 'csv', 'SELECT ?o { ?s ?p ?o }'], project), 'o\r\nc\r\n');
    // serve, load and dump are not in the bundle: their errors must still read as what they are.
    const wrong = spawnSync(quiver, ['serve', '--no-such-flag'], { cwd: project, encoding: 'utf8' });
    assert.equal(wrong.status, 2, wrong.stderr);
    assert.match(wrong.stderr, /see quiver serve --help/);
  });
});
