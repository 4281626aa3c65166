import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, call, ctx, dt, lit } from './test-helpers.js';

test('date and time parts of an xsd:dateTime', () => {
  const d = dt('2010-12-21T15:38:02.50-08:00');
  assert.equal(call('year', [d]), '"2010"^^<xsd:integer>');
  assert.equal(call('month', [d]), '"12"^^<xsd:integer>');
  assert.equal(call('day', [d]), '"21"^^<xsd:integer>');
  assert.equal(call('hours', [d]), '"15"^^<xsd:integer>');
  assert.equal(call('minutes', [d]), '"38"^^<xsd:integer>');
  assert.equal(call('seconds', [d]), '"2.5"^^<xsd:decimal>');
  assert.equal(call('seconds', [dt('2010-06-21T11:28:01Z')]), '"1"^^<xsd:decimal>');
  assert.equal(call('year', [dt('-0044-03-15T12:00:00')]), '"-44"^^<xsd:integer>');
});

test('TIMEZONE is a dayTimeDuration and an error without a zone; TZ is the zone as written', () => {
  assert.equal(call('timezone', [dt('2010-06-21T11:28:01Z')]), '"PT0S"^^<xsd:dayTimeDuration>');
  assert.equal(call('timezone', [dt('2010-12-21T15:38:02-08:00')]), '"-PT8H"^^<xsd:dayTimeDuration>');
  assert.equal(call('timezone', [dt('2010-12-21T15:38:02+05:30')]), '"PT5H30M"^^<xsd:dayTimeDuration>');
  assert.equal(attempt('timezone', [dt('2011-02-01T01:02:03')]), 'error');
  assert.equal(call('tz', [dt('2010-06-21T11:28:01Z')]), '"Z"');
  assert.equal(call('tz', [dt('2010-12-21T15:38:02-08:00')]), '"-08:00"');
  assert.equal(call('tz', [dt('2011-02-01T01:02:03')]), '""');
});

test('date accessors also take xsd:date, time accessors xsd:time', () => {
  assert.equal(call('month', [lit('2006-08-23Z', 'xsd:date')]), '"8"^^<xsd:integer>');
  assert.equal(call('hours', [lit('13:20:00', 'xsd:time')]), '"13"^^<xsd:integer>');
  assert.equal(attempt('hours', [lit('2006-08-23', 'xsd:date')]), 'error');
});

test('accessors reject strings and ill-typed date/times', () => {
  assert.equal(attempt('year', [lit('2010-06-21T11:28:01Z')]), 'error');
  assert.equal(attempt('year', [dt('2010-13-21T11:28:01Z')]), 'error');
  assert.equal(attempt('day', [dt('2011-02-29T00:00:00Z')]), 'error');
});

test("NOW is the query's fixed instant", () => {
  const context = ctx({ now: new Date('2024-01-02T03:04:05.678Z') });
  assert.equal(call('now', [], context), '"2024-01-02T03:04:05.678Z"^^<xsd:dateTime>');
  assert.equal(call('now', [], context), call('now', [], context));
});

test('24:00:00 is midnight at the end of the day', () => {
  const d = dt('1999-12-31T24:00:00Z');
  assert.equal(call('year', [d]), '"2000"^^<xsd:integer>');
  assert.equal(call('month', [d]), '"1"^^<xsd:integer>');
  assert.equal(call('day', [d]), '"1"^^<xsd:integer>');
  assert.equal(call('hours', [d]), '"0"^^<xsd:integer>');
  assert.equal(call('day', [dt('2000-02-28T24:00:00')]), '"29"^^<xsd:integer>');
});
