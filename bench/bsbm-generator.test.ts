import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { bsbmDataset } from './bsbm-generator.js';

const SHARED_BSBM = resolve(fileURLToPath(new URL('../..', import.meta.url)), '../shared/bench/bsbm');

test('1,000 products from the BSBM generator are the shared bsbm-1000 file, byte for byte', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-bsbm-'));
  try {
    const file = await bsbmDataset(dir, 1000, join(SHARED_BSBM, 'generator'));
    assert.equal(file, join(dir, 'bsbm-1000.nt'));
    const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
    assert.equal(sha(readFileSync(file)), sha(gunzipSync(readFileSync(join(SHARED_BSBM, 'bsbm-1000.nt.gz')))));
    // A second call finds the cached file instead of generating it again.
    assert.equal(await bsbmDataset(dir, 1000, join(dir, 'no-generator-here')), file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
