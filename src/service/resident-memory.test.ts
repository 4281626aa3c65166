import { test } from 'node:test';
import assert from 'node:assert/strict';
import { residentBytes, unreclaimableBytes } from './resident-memory.js';

test('the memory the system cannot take back: anonymous and shared pages, not mapped files', () => {
  const status = 'VmRSS:\t  300000 kB\nRssAnon:\t  200000 kB\nRssFile:\t   90000 kB\nRssShmem:\t   10000 kB\n';
  assert.equal(unreclaimableBytes(status), 210_000 * 1024);
  assert.throws(() => unreclaimableBytes('VmRSS: 1 kB'), /RssAnon/);
  const now = residentBytes();
  assert.ok(now > 2 ** 20 && now <= process.memoryUsage.rss() + 2 ** 20, `${now}`);
});
