/**
 * A growable, flat store of materialized rows (for hash tables, sorts and groups): one typed
 * array, not an object per row.
 */
import type { Batch } from './batch.js';
import type { ExecContext } from './exec-context.js';

export class RowBuffer {
  data: Float64Array;
  length = 0;

  constructor(
    readonly width: number,
    initialRows = 64,
  ) {
    this.data = new Float64Array(Math.max(1, width) * initialRows);
  }

  push(from: Float64Array, offset: number, ctx?: ExecContext): number {
    const w = this.width;
    if ((this.length + 1) * w > this.data.length) {
      const grown = new Float64Array(Math.max(this.data.length * 2, w * 64));
      ctx?.reserve((grown.length - this.data.length) * 8);
      grown.set(this.data);
      this.data = grown;
    }
    const index = this.length++;
    const data = this.data;
    for (let i = 0, t = index * w; i < w; i++) data[t + i] = from[offset + i];
    return index;
  }

  pushBatch(batch: Batch, ctx?: ExecContext): void {
    for (let r = 0; r < batch.length; r++) this.push(batch.data, r * batch.width, ctx);
  }
}

/** A key for a hash table over some slots of a row: a number for one slot, a string otherwise. */
export function rowKey(data: Float64Array, offset: number, slots: readonly number[]): number | string {
  if (slots.length === 1) return data[offset + slots[0]];
  let key = '';
  for (const s of slots) key += data[offset + s] + ',';
  return key;
}

/** Whether every one of the slots is bound in the row. */
export function allBound(data: Float64Array, offset: number, slots: readonly number[]): boolean {
  for (const s of slots) if (data[offset + s] === 0) return false;
  return true;
}
