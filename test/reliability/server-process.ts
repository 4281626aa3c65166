/**
 * The real `quiver serve` as a child process, for tests that kill it or that must see it survive:
 * an in-process server would take the test runner down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const STARTUP_LIMIT_MS = 30_000;

export interface ServerProcess {
  /** http://127.0.0.1:PORT */
  origin: string;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far (for failure messages). */
  stderr(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Sends the signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface ServerProcessOptions {
  /** Options of node itself, e.g. --max-old-space-size=512. */
  nodeOptions?: string[];
  /**
   * A command that runs node in some other setting and then becomes it (exec), so that the child's
   * PID stays the server's: e.g. `unshare` for a mount namespace of its own.
   */
  wrapper?: string[];
}

/** Starts `quiver serve --port 0 <args>` and waits for its "listening on" line. */
export function startServerProcess(args: string[], options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const command = [...(options.wrapper ?? []), process.execPath, ...(options.nodeOptions ?? []), MAIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...args];
  const child = spawn(command[0], command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stderr = '';
  let stdout = '';
  let exited = false;
  let started = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<ServerProcess>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start in ${STARTUP_LIMIT_MS} ms`)), STARTUP_LIMIT_MS);
    const fail = (error: Error): void => {
      if (started) return;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\nstderr: ${stderr}`));
    };
    child.once('exit', (code, signal) => fail(new Error(`the server exited (${code ?? signal}) before listening`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/[^/\s]+)/.exec(stdout);
      if (!match) return;
      if (started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        origin: match[1],
        child,
        stderr: () => stderr,
        alive: () => !exited && child.exitCode === null && child.signalCode === null,
        stop: async (signal = 'SIGTERM') => {
          if (!exited) child.kill(signal);
          await exit;
        },
      });
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 now, for a server that must know its own port before it starts
 * (`--fetch-allow 127.0.0.1:PORT` to let it fetch from itself); a later `--port` overrides `--port 0`.
 */
export function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
