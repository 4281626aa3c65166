/**
 * Apache Jena's command line clients (Debian's libapache-jena-java) against a live `quiver serve`:
 * `arq.rsparql` for queries (GET, and POST with --post) and `arq.rupdate` for updates. Debian ships
 * the jars without a launcher script, so the classpath is built as the benchmark's Jena engine builds
 * it (bench/engines/jena-classpath.ts). Each command is a JVM
 * start (seconds): the calls run two at a time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { debianJars, JENA_CLIENT_JARS, JENA_DEPENDENCY_JARS, xercesMessages } from '../../bench/engines/jena-classpath.js';
import { ask, EX, requireInstalled, runClient, startQuiverWithPeople, type LiveQuiver } from './live-quiver.js';

const JAVA = '/usr/bin/java';
const PREFIX = `PREFIX ex: <${EX}> `;

let quiver: LiveQuiver;
let workDirectory: string;
let classpath: string;

before(async () => {
  requireInstalled(JAVA, 'default-jre-headless');
  const jars = debianJars([...JENA_CLIENT_JARS, ...JENA_DEPENDENCY_JARS]);
  for (const jar of jars) requireInstalled(jar, 'libapache-jena-java');
  requireInstalled('/usr/bin/unzip', 'unzip');
  workDirectory = mkdtempSync(join(tmpdir(), 'quiver-jena-'));
  classpath = [xercesMessages(workDirectory), ...jars].join(':');
  quiver = await startQuiverWithPeople();
});
after(async () => {
  await quiver?.stop();
  if (workDirectory) rmSync(workDirectory, { recursive: true, force: true });
});

/** A short-lived JVM starts faster on the quick compiler alone and the serial collector (a third less CPU). */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

function jena(mainClass: 'arq.rsparql' | 'arq.rupdate', args: string[]): Promise<string> {
  return runClient(JAVA, [...JVM_OPTIONS, '-cp', classpath, mainClass, ...args], 120_000).then((output) => output.stdout);
}

/** Runs the calls two at a time (the machine's cores), each a JVM. */
async function twoAtATime<T>(calls: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < calls.length; i += 2) results.push(...(await Promise.all(calls.slice(i, i + 2).map((call) => call()))));
  return results;
}

describe('Jena rsparql and rupdate against a live Quiver', () => {
  // The updates write ex:nick, which no query reads: the calls may run in any order.
  it('queries by GET and POST, at /sparql and /sparql/select, and updates at /sparql/update and /sparql', async () => {
    const [select, askAnswer, construct, , updateOnSingle] = await twoAtATime([
      () =>
        jena('arq.rsparql', ['--service', `${quiver.origin}/sparql`, '--results=json', `${PREFIX}SELECT ?name WHERE { ?person ex:name ?name } ORDER BY ?name`]),
      () => jena('arq.rsparql', ['--service', `${quiver.origin}/sparql`, '--post', '--results=xml', `${PREFIX}ASK { ex:alice ex:knows ex:bob }`]),
      () =>
        jena('arq.rsparql', [
          '--service',
          `${quiver.origin}/sparql/select`,
          '--results=ntriples',
          `${PREFIX}CONSTRUCT { ?p ex:name ?n } WHERE { ?p ex:name ?n }`,
        ]),
      () => jena('arq.rupdate', ['--service', `${quiver.origin}/sparql/update`, `${PREFIX}INSERT DATA { ex:erin ex:nick "Erin" }`]),
      () => jena('arq.rupdate', ['--service', `${quiver.origin}/sparql`, `${PREFIX}INSERT DATA { ex:frank ex:nick "Frank" }`]),
    ]);
    const bindings = (JSON.parse(select) as { results: { bindings: { name: { value: string } }[] } }).results.bindings;
    assert.deepEqual(
      bindings.map((b) => b.name.value),
      ['Alice', 'Bob'],
    );
    assert.match(askAnswer, /<boolean>true<\/boolean>/);
    assert.equal(construct.trim().split('\n').sort().join('\n'), [`<${EX}alice> <${EX}name> "Alice" .`, `<${EX}bob> <${EX}name> "Bob" .`].join('\n'));
    assert.equal(updateOnSingle.trim(), '');
    assert.ok(await ask(quiver.origin, `${PREFIX}ASK { ex:erin ex:nick "Erin" }`), 'rupdate at /sparql/update');
    assert.ok(await ask(quiver.origin, `${PREFIX}ASK { ex:frank ex:nick "Frank" }`), 'rupdate at /sparql');
  });
});
