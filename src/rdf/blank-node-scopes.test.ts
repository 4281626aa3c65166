import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { newBlankNodeScope } from './blank-node-scopes.js';

const MODULE = new URL('./blank-node-scopes.js', import.meta.url).href;

function scopesOfNewProcess(): string[] {
  const script = `const { newBlankNodeScope } = await import(${JSON.stringify(MODULE)}); console.log(JSON.stringify([newBlankNodeScope('d'), newBlankNodeScope('d')]));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
}

test('every scope is new: within a process, and in the next process, which counts from zero again', () => {
  const here = [newBlankNodeScope('d'), newBlankNodeScope('d')];
  const first = scopesOfNewProcess();
  const second = scopesOfNewProcess();
  const all = [...here, ...first, ...second];
  assert.equal(new Set(all).size, all.length, all.join(' '));
  for (const scope of all) assert.match(scope, /^d[0-9a-z]+_$/);
});
