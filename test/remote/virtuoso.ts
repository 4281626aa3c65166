/**
 * A throw-away Virtuoso for the remote-mode tests: its database in a temporary directory, its HTTP
 * and SQL ports free loopback ports, started in the foreground and stopped by its PID. The SPARQL
 * user gets the right to update over HTTP, which Virtuoso withholds by default.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../bench/engines/engine.js';
import { virtuosoIni } from '../../bench/engines/virtuoso-ini.js';

const run = promisify(execFile);

export interface RunningVirtuoso {
  /** http://127.0.0.1:PORT/sparql: queries and (after the grant) updates. */
  endpoint: string;
  pid: number;
  /** Runs SQL through isql (as dba). */
  sql(statement: string): Promise<string>;
  /** Stops the process but keeps its database, for start() to bring it back on the same ports. */
  halt(): Promise<void>;
  /** Starts it again after halt(). */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL; the temporary directory is removed. Safe to call twice. */
  stop(): Promise<void>;
}

/** Why the remote tests cannot run here, or undefined when Virtuoso is installed. */
export function virtuosoMissing(): string | undefined {
  if (!onPath('virtuoso-t')) return 'virtuoso-t is not installed (Debian: apt-get install virtuoso-opensource); remote-mode tests skipped';
  if (!isqlCommand()) return 'isql-vt is not installed (it comes with virtuoso-opensource); remote-mode tests skipped';
  return undefined;
}

export async function startVirtuoso(options: { queryTimeoutS?: number } = {}): Promise<RunningVirtuoso> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-virtuoso-'));
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  const ini = join(dir, 'virtuoso.ini');
  writeFileSync(ini, virtuosoIni({ dir, sqlPort, httpPort, queryTimeoutS: options.queryTimeoutS ?? 60 }));
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const isql = isqlCommand()!;
  const sql = async (statement: string): Promise<string> =>
    (await run(isql, [`127.0.0.1:${sqlPort}`, 'dba', 'dba', `exec=${statement}`], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  let process_: { child: ChildProcess; exited: Promise<void> } | undefined;
  let stderr = '';
  const start = async (): Promise<void> => {
    const child = spawn('virtuoso-t', ['+foreground', '+configfile', ini], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    process_ = { child, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) };
    await waitUntilAnswering(`${endpoint}?query=${encodeURIComponent('ASK {}')}`, child, 120_000);
  };
  const halt = async (): Promise<void> => {
    if (process_) await stopProcess(process_.child, process_.exited);
  };
  const stop = async (): Promise<void> => {
    await halt();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await start();
    await sql('GRANT SPARQL_UPDATE TO "SPARQL";');
  } catch (error) {
    await stop();
    throw new Error(`Virtuoso did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return {
    endpoint,
    get pid() {
      return process_!.child.pid!;
    },
    sql,
    halt,
    start,
    stop,
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`virtuoso-t exited (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no answer from ${url} within ${limitMs} ms`);
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  process.kill(child.pid!, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  }, 15_000);
  await exited;
  clearTimeout(timer);
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

function isqlCommand(): string | undefined {
  return ['isql-vt', 'isql-v'].find(onPath);
}
