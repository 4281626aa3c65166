import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DistinctSketch, SKETCH_REGISTERS, decodeSketchPair, encodeSketchPair } from './distinct-sketch.js';
import { seededRandom } from './fixtures/sample-quads.js';

/** A sketch of the IDs first, first + 1, ... (IDs come sequential from the dictionary), each added `repeats` times. */
function sketchOf(count: number, first = 2, repeats = 1): DistinctSketch {
  const sketch = new DistinctSketch();
  for (let r = 0; r < repeats; r++) for (let id = first; id < first + count; id++) sketch.add(id);
  return sketch;
}

test('the estimate is within a few standard errors of the true count, from one ID to millions', () => {
  for (const count of [0, 1, 2, 10, 100, 511, 1_000, 1_300, 5_000, 40_000, 300_000, 2_000_000]) {
    const estimate = sketchOf(count, 2 + count * 7).estimate();
    // 1.04 / sqrt(512) is 4.6%; small sets are counted about exactly (linear counting).
    const allowed = Math.max(1, count * 0.15);
    assert.ok(Math.abs(estimate - count) <= allowed, `${count} distinct IDs estimated as ${estimate}`);
  }
});

test('adding an ID again changes nothing, and the order of adds does not matter', () => {
  const once = sketchOf(3_000);
  const thrice = sketchOf(3_000, 2, 3);
  assert.deepEqual(thrice.registers, once.registers);
  const random = seededRandom(5);
  const shuffled = Array.from({ length: 3_000 }, (_, i) => i + 2).sort(() => random() - 0.5);
  const other = new DistinctSketch();
  let grew = 0;
  for (const id of shuffled) if (other.add(id)) grew++;
  assert.deepEqual(other.registers, once.registers);
  assert.ok(grew > 0 && !other.add(shuffled[0]), 'add says whether a register grew');
});

test('a sketch covers the sketch of any subset, and not of a larger set', () => {
  const all = sketchOf(10_000);
  assert.ok(all.covers(sketchOf(4_000)));
  assert.ok(all.covers(sketchOf(4_000, 3_000)));
  assert.ok(!sketchOf(100).covers(all));
  assert.ok(new DistinctSketch().isEmpty() && !sketchOf(1).isEmpty());
});

test('pairs of sketches read back as written, sparse while few registers are set and dense after', () => {
  for (const [a, b] of [
    [0, 0],
    [1, 0],
    [20, 70],
    [150, 10],
    [5_000, 3],
    [100_000, 100_000],
  ]) {
    const [subjects, objects] = [sketchOf(a), sketchOf(b, 1_000_000)];
    const bytes = encodeSketchPair(subjects, objects);
    assert.ok(bytes.length <= 1 + 2 * SKETCH_REGISTERS, `${a}/${b}: ${bytes.length} bytes`);
    if (a + b <= 100) assert.ok(bytes.length < 1 + 4 + 3 * (a + b) + 1, 'sparse');
    const pair = decodeSketchPair(bytes);
    assert.ok(pair, `${a}/${b} decodes`);
    assert.deepEqual(pair[0].registers, subjects.registers);
    assert.deepEqual(pair[1].registers, objects.registers);
  }
  assert.equal(decodeSketchPair(Uint8Array.of(7)), undefined, 'an unknown kind');
  assert.equal(decodeSketchPair(Uint8Array.of(1, 0, 2, 0, 1)), undefined, 'truncated');
});
