/**
 * Command-line flags with their environment variables and defaults, declared once so that parsing,
 * `--help` and the README cannot drift apart. A flag beats its variable, which beats the default.
 */
import { parseArgs } from 'node:util';

export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  /** The value placeholder shown in --help (string options). */
  value?: string;
  default?: string;
  /** A default that --help shows but that is worked out after parsing (it depends on other flags). */
  shownDefault?: string;
  description: string;
  /** Without an environment variable (e.g. --help). */
  noEnv?: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** QUIVER_ + the flag name in upper snake case: --query-timeout → QUIVER_QUERY_TIMEOUT. */
export function envName(flag: string): string {
  return 'QUIVER_' + flag.toUpperCase().replace(/-/g, '_');
}

export interface ParsedOptions {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export function parseOptions(specs: OptionSpec[], args: string[], env: NodeJS.ProcessEnv): ParsedOptions {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const spec of specs) options[spec.name] = { type: spec.type };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values: Record<string, string | boolean | undefined> = {};
  for (const spec of specs) {
    const given = (parsed.values as Record<string, string | boolean | undefined>)[spec.name];
    if (given !== undefined) values[spec.name] = given;
    else if (!spec.noEnv && env[envName(spec.name)] !== undefined) values[spec.name] = fromEnv(spec, env[envName(spec.name)]!);
    else values[spec.name] = spec.type === 'boolean' ? false : spec.default;
  }
  return { values, positionals: parsed.positionals };
}

function fromEnv(spec: OptionSpec, raw: string): string | boolean {
  if (spec.type === 'string') return raw;
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  throw new UsageError(`${envName(spec.name)} must be true or false, not '${raw}'`);
}

export function helpText(usage: string, summary: string, specs: OptionSpec[]): string {
  const rows = specs.map((spec) => {
    const flag = `--${spec.name}${spec.value ? ' ' + spec.value : ''}`;
    const env = spec.noEnv ? '' : `  [${envName(spec.name)}]`;
    const shown = spec.default ?? spec.shownDefault;
    const fallback = shown !== undefined ? ` (default: ${shown})` : '';
    return `  ${flag.padEnd(26)} ${spec.description}${fallback}${env}`;
  });
  return `${usage}\n\n${summary}\n\nOptions (environment variable in brackets):\n${rows.join('\n')}\n`;
}

export function stringOption(values: ParsedOptions['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function positiveNumber(values: ParsedOptions['values'], name: string): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, not '${raw}'`);
  return value;
}

export function positiveInteger(values: ParsedOptions['values'], name: string): number | undefined {
  const value = positiveNumber(values, name);
  if (value !== undefined && !Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number`);
  return value;
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1e3, kb: 1e3, kib: 1024, m: 1e6, mb: 1e6, mib: 1024 ** 2, g: 1e9, gb: 1e9, gib: 1024 ** 3 };

/** Bytes, with an optional unit: 10485760, 10MiB, 512k. */
export function byteSize(values: ParsedOptions['values'], name: string): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new UsageError(`--${name} must be a size in bytes (e.g. 10485760 or 10MiB), not '${raw}'`);
  return Math.floor(Number(match[1]) * unit);
}

/** `value` as one of `choices`, the values --name accepts. */
export function oneOf<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, not '${value}'`);
  return value as T;
}
