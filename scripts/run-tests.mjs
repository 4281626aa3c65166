#!/usr/bin/env node
// Runs every compiled *.test.js under dist/ with node's test runner. Node 20's `--test` takes no
// globs, and pointing it at folders would also run every helper module under test/ as a test file.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const files = testFiles('dist').sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((s) => f.includes(s))) : files;
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...selected], { stdio: 'inherit' });
process.exit(result.status ?? 1);
