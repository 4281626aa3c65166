/**
 * The serve flags of access control and LOAD policy, kept together so their checks read as one.
 * Secrets are better passed in the environment (QUIVER_UPDATE_TOKEN, ...) than as flags, which
 * other users of the machine can see in the process list.
 */
import { realpathSync, statSync } from 'node:fs';
import { accessHooks } from '../server/index.js';
import type { ServerConfig } from '../server/index.js';
import { stringOption, UsageError, type OptionSpec, type ParsedOptions } from './options.js';

export const SECURITY_OPTIONS: OptionSpec[] = [
  {
    name: 'update-token',
    type: 'string',
    value: 'TOKEN',
    description: "writes need 'Authorization: Bearer TOKEN' (default: none, writes are open; prefer the environment variable)",
  },
  { name: 'update-user', type: 'string', value: 'USER', description: 'writes need HTTP Basic as this user, with --update-password (default: none)' },
  { name: 'update-password', type: 'string', value: 'PASSWORD', description: 'the password of --update-user (default: none; prefer the environment variable)' },
  {
    name: 'query-token',
    type: 'string',
    value: 'TOKEN',
    description: "queries, graph reads and /metrics need 'Authorization: Bearer TOKEN' (default: none, queries are open; prefer the environment variable)",
  },
  { name: 'no-load', type: 'boolean', description: 'refuse SPARQL LOAD (default: off, LOAD fetches http(s) documents)' },
  { name: 'load-dir', type: 'string', value: 'DIR', description: 'LOAD may read file: IRIs of files under DIR (default: none, no local files)' },
];

export interface SecuritySettings {
  /** The authorization hooks of the server. */
  server: Pick<ServerConfig, 'authorizeUpdate' | 'authorizeQuery'>;
  allowLoad: boolean;
  /** The real path of --load-dir. */
  loadDir?: string;
}

export function securitySettings(values: ParsedOptions['values']): SecuritySettings {
  let server: SecuritySettings['server'];
  try {
    server = accessHooks({
      updateToken: stringOption(values, 'update-token'),
      updateUser: stringOption(values, 'update-user'),
      updatePassword: stringOption(values, 'update-password'),
      queryToken: stringOption(values, 'query-token'),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { server, allowLoad: values['no-load'] !== true, loadDir: loadDirectory(stringOption(values, 'load-dir')) };
}

function loadDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  try {
    const real = realpathSync(dir);
    if (statSync(real).isDirectory()) return real;
  } catch {
    // Reported below, in the same words whatever went wrong.
  }
  throw new UsageError(`--load-dir must name an existing directory, not '${dir}'`);
}
