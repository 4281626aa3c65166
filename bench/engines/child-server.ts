/**
 * A SPARQL server running as a child process: started, awaited until it prints its endpoint, and
 * stopped by its PID. Every engine runs this way so that each is measured across the same loopback
 * HTTP path, and its memory is its own process's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { processMemory, type ProcessMemory } from './process-memory.js';

export interface ChildServer {
  pid: number;
  /** The first http URL the child printed after "listening on". */
  endpoint: string;
  /** Every stdout line so far (servers may report figures there, e.g. load times). */
  stdout: string[];
  memory(): ProcessMemory | undefined;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface ChildServerSpec {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long the start (including any data load) may take. */
  startupMs: number;
  /** For servers that do not print "listening on URL": poll this URL until it answers. */
  readyUrl?: string;
}

const LISTENING = /listening on (https?:\/\/\S+)/;

export function startChildServer(spec: ChildServerSpec): Promise<ChildServer> {
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > 50) stderr.shift();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<ChildServer>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      reject(new Error(`${spec.command} ${spec.args.join(' ')}: ${why}\n${stderr.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`not listening after ${spec.startupMs} ms`), spec.startupMs);
    let ready = false;
    const succeed = (endpoint: string): void => {
      if (ready) return;
      ready = true;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      resolve(handle(child, endpoint, stdout, exited));
    };
    child.once('error', (error) => fail(error.message));
    const exitedEarly = (code: number | null, signal: NodeJS.Signals | null): void => fail(`exited (${signal ?? code}) before listening`);
    child.once('exit', exitedEarly);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const match = LISTENING.exec(line);
      if (match && !spec.readyUrl) succeed(match[1]);
    });
    if (spec.readyUrl) void pollUntilAnswering(spec.readyUrl, () => ready || child.exitCode !== null).then((ok) => ok && succeed(spec.readyUrl!));
  });
}

async function pollUntilAnswering(url: string, giveUp: () => boolean): Promise<boolean> {
  while (!giveUp()) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return false;
}

function handle(child: ChildProcess, endpoint: string, stdout: string[], exited: Promise<void>): ChildServer {
  const pid = child.pid!;
  return {
    pid,
    endpoint,
    stdout,
    memory: () => processMemory(pid),
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null) process.kill(pid, 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
