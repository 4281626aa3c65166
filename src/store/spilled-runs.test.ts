import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from './fixtures/sample-quads.js';
import { SortedRuns } from './sorted-runs.js';
import { SpilledRuns, loadMemoryEntries } from './spilled-runs.js';

test('spilled runs merge back into one sequence sorted in each order, ties in run order', () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-runs-'));
  try {
    const orders = [
      [1, 2, 0, 3],
      [2, 0, 1, 3],
    ];
    const held = new SortedRuns(5000, orders);
    const spill = new SpilledRuns(join(dir, 'runs'), 'test', orders);
    const random = seededRandom(7);
    const all: number[][] = [];
    // Runs of different sizes, one of them larger than a read block would be at 1 entry.
    for (const size of [3000, 1, 70_000, 0, 4500]) {
      const entries = held.reserve(size);
      for (let i = 0; i < size; i++) {
        const quad = [Math.floor(random() * 50), Math.floor(random() * 4), Math.floor(random() * 2 ** 32), all.length];
        entries.set(quad, (held.count + i) * 4);
        all.push(quad);
      }
      held.count += size;
      held.sealRun();
      spill.spill(held);
      assert.equal(held.count, 0);
    }
    assert.equal(spill.runCount, 4, 'an empty run makes no file');
    for (let k = 0; k < orders.length; k++) {
      const merged = spill.merged(k);
      const got: number[][] = [];
      const out = new Uint32Array(1000 * 4);
      for (let n; (n = merged.read(out, 1000)) > 0;) for (let i = 0; i < n; i++) got.push([...out.subarray(i * 4, i * 4 + 4)]);
      merged.close();
      const order = orders[k];
      const expected = [...all].sort(
        (a, b) => a[order[0]] - b[order[0]] || a[order[1]] - b[order[1]] || a[order[2]] - b[order[2]] || a[order[3]] - b[order[3]],
      );
      assert.deepEqual(got, expected);
    }
    spill.remove();
    assert.deepEqual(readdirSync(join(dir, 'runs')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the memory cap of a load comes from QUIVER_LOAD_MEMORY_ENTRIES when it is a positive integer', () => {
  const saved = process.env.QUIVER_LOAD_MEMORY_ENTRIES;
  try {
    delete process.env.QUIVER_LOAD_MEMORY_ENTRIES;
    const byDefault = loadMemoryEntries();
    assert.ok(byDefault >= 1 << 20);
    process.env.QUIVER_LOAD_MEMORY_ENTRIES = '1000';
    assert.equal(loadMemoryEntries(), 1000);
    process.env.QUIVER_LOAD_MEMORY_ENTRIES = 'lots';
    assert.equal(loadMemoryEntries(), byDefault);
  } finally {
    if (saved === undefined) delete process.env.QUIVER_LOAD_MEMORY_ENTRIES;
    else process.env.QUIVER_LOAD_MEMORY_ENTRIES = saved;
  }
});
