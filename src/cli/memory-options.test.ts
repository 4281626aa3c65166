import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cgroupMemoryLimit, defaultMaxMemory, defaultQueryMemory, memorySettings, MEMORY_OPTIONS, queryMemoryWithin } from './memory-options.js';
import { parseOptions, UsageError } from './options.js';

const MIB = 2 ** 20;
const GIB = 2 ** 30;

function settings(args: string[], workers = 2, env: NodeJS.ProcessEnv = {}) {
  return memorySettings(parseOptions(MEMORY_OPTIONS, args, env).values, workers);
}

describe('the memory limit of the process (--max-memory)', () => {
  it('defaults to three quarters of the RAM, or of the container limit when lower', () => {
    assert.equal(defaultMaxMemory(16 * GIB, undefined), 12 * GIB);
    assert.equal(defaultMaxMemory(16 * GIB, 2 * GIB), 1536 * MIB);
    assert.equal(defaultMaxMemory(2 * GIB, 16 * GIB), 1536 * MIB);
  });

  it('reads the container limit from cgroup v2, else v1; "max" or a huge v1 number is no limit', () => {
    const files = (contents: Record<string, string>) => (path: string) => {
      if (!(path in contents)) throw new Error('ENOENT');
      return contents[path]!;
    };
    assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': '1073741824\n' })), GIB);
    assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': 'max\n' })), undefined);
    assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912' })), 512 * MIB);
    assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712' })), undefined);
    assert.equal(cgroupMemoryLimit(files({})), undefined);
  });

  it('takes the flag, the variable, the default; 0 switches it off', () => {
    assert.equal(settings(['--max-memory', '600MiB']).maxMemory, 600 * MIB);
    assert.equal(settings([], 2, { QUIVER_MAX_MEMORY: '2GiB' }).maxMemory, 2 * GIB);
    assert.equal(settings([]).maxMemory, defaultMaxMemory());
    assert.equal(settings(['--max-memory', '0']).maxMemory, undefined);
  });
});

describe('the memory budget of a query under a process limit', () => {
  it('defaults to what the limit leaves each worker: two budgets and 64 MiB each, beside the server itself', () => {
    // 600 MiB, 2 workers: (600 - 128 - 2 × 48) / 2 = 188 per worker; (188 - 64) / 2 = 62.
    assert.equal(queryMemoryWithin(600 * MIB, 2), 62 * MIB);
    assert.equal(settings(['--max-memory', '600MiB'], 2).queryMemoryBudget, 62 * MIB);
    assert.equal(queryMemoryWithin(200 * MIB, 8), 16 * MIB, 'never under 16 MiB: the server then says the limit is too small');
    assert.equal(settings(['--max-memory', '64GiB'], 2).queryMemoryBudget, defaultQueryMemory(), 'a large limit leaves the usual default');
  });

  it('keeps a budget that is given, and refuses one as large as the limit', () => {
    assert.equal(settings(['--max-memory', '600MiB', '--query-memory', '100MiB']).queryMemoryBudget, 100 * MIB);
    assert.equal(settings(['--max-memory', '0', '--query-memory', '8GiB']).queryMemoryBudget, 8 * GIB);
    assert.equal(settings(['--query-memory', '0']).queryMemoryBudget, undefined);
    assert.throws(() => settings(['--max-memory', '1GiB', '--query-memory', '1GiB']), UsageError);
  });
});
