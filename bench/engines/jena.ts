/**
 * Apache Jena (Debian's libapache-jena-java, 4.5) over a TDB2 store: loaded with `tdb2.tdbloader`
 * (timed, JVM start included), then served by JenaServer.java, a small SPARQL endpoint on the JDK's
 * own HTTP server calling ARQ, compiled here with javac at launch. Debian ships no Fuseki, and no
 * Jetty that Jena's own server could run on; this endpoint adds no more than Fuseki's HTTP layer
 * would, and reads each query's whole answer before writing it, as the harness's Oxigraph server does.
 *
 * The classpath: Debian's Jena jars and their dependencies (jena-classpath.ts).
 *
 * Not installed (no java/javac or no jars): skipped with a reason; the harness installs nothing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { directoryBytes } from '../dataset-loader.js';
import { startChildServer } from './child-server.js';
import { DEBIAN_JARS, debianJars, JENA_CLIENT_JARS, JENA_DEPENDENCY_JARS, JENA_STORE_JARS, xercesMessages } from './jena-classpath.js';
import type { EngineLauncher } from './engine.js';

const run = promisify(execFile);
/** Heap of the loader and of the server: the store's own caches live outside it (memory-mapped files). */
const HEAP = '-Xmx4g';
/** Request threads: as many as the harness's most clients, like the other engines' servers. */
const THREADS = 8;

export const launchJena: EngineLauncher = async (context) => {
  const java = onPath('java');
  const javac = onPath('javac');
  const jars = debianJars([...JENA_CLIENT_JARS, ...JENA_STORE_JARS, ...JENA_DEPENDENCY_JARS]);
  const missing = jars.filter((jar) => !existsSync(jar));
  if (!java || !javac) return { skipped: 'no java and javac on the PATH (Debian: default-jdk-headless)' };
  if (missing.length > 0) return { skipped: `Jena is not installed (Debian: libapache-jena-java; missing ${missing.slice(0, 3).join(', ')})` };
  const dir = resolve(context.workDir, 'jena');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const classes = join(dir, 'classes');
  const classpath = [xercesMessages(dir), classes, ...jars].join(':');
  await run(javac, ['-nowarn', '-d', classes, '-cp', jars.join(':'), join(context.repoRoot, 'bench/engines/JenaServer.java')]);

  const store = join(dir, 'tdb2');
  const started = process.hrtime.bigint();
  await run(java, [HEAP, '-cp', classpath, 'tdb2.tdbloader', '--loc', store, resolve(context.dataset)], { maxBuffer: 16 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const storeBytes = directoryBytes(store);

  const server = await startChildServer({
    command: java,
    // nodelay: the JDK's server otherwise leaves Nagle on, and a kept-alive connection could stall
    // 40 ms on an answer written in pieces (see virtuoso.ts).
    args: [HEAP, '-Dsun.net.httpserver.nodelay=true', '-cp', classpath, 'JenaServer', store, '0', String(THREADS), String(context.queryTimeoutMs)],
    cwd: dir,
    startupMs: 120_000,
  });
  try {
    const triples = await tripleCount(server.endpoint);
    return {
      engine: {
        name: 'jena',
        description: `Apache Jena ${jenaVersion()} TDB2 (Debian libapache-jena-java), ARQ behind the harness's JDK HTTP server (bench/engines/JenaServer.java), ${javaVersion(java)}`,
        endpoint: server.endpoint,
        pid: server.pid,
        load: {
          triples,
          seconds,
          triplesPerSecond: triples / seconds,
          storeBytes,
          bytesPerTriple: storeBytes / triples,
          method: 'tdb2.tdbloader into a new TDB2 store (JVM start included)',
        },
        memory: () => server.memory(),
        stop: () => server.stop(),
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
};

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function jenaVersion(): string {
  const found = spawnSync('sh', ['-c', `ls ${DEBIAN_JARS} | grep -o '^jena-arq-[0-9.]*[0-9]'`], { encoding: 'utf8' });
  return found.stdout.trim().replace('jena-arq-', '') || 'version unknown';
}

function javaVersion(java: string): string {
  const line = spawnSync(java, ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0] ?? '';
  return line.trim() || 'java';
}

async function tripleCount(endpoint: string): Promise<number> {
  const url = `${endpoint}?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')}`;
  const response = await fetch(url, { headers: { accept: 'application/sparql-results+json' } });
  const json = (await response.json()) as { results: { bindings: { n: { value: string } }[] } };
  return Number(json.results.bindings[0].n.value);
}
