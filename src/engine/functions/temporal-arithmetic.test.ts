import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, call, dt, int, lit } from './test-helpers.js';

const date = (s: string) => lit(s, 'xsd:date');
const time = (s: string) => lit(s, 'xsd:time');
const dayTime = (s: string) => lit(s, 'xsd:dayTimeDuration');
const yearMonth = (s: string) => lit(s, 'xsd:yearMonthDuration');

test('dateTime - dateTime and date - date are xsd:dayTimeDurations', () => {
  assert.equal(call('-', [dt('2000-10-30T06:12:00-05:00'), dt('1999-11-28T09:00:00Z')]), '"P337DT2H12M"^^<xsd:dayTimeDuration>');
  assert.equal(call('-', [dt('2024-01-01T00:00:00Z'), dt('2024-01-01T00:00:01.5Z')]), '"-PT1.5S"^^<xsd:dayTimeDuration>');
  assert.equal(call('-', [date('2000-10-30'), date('1999-11-28')]), '"P337D"^^<xsd:dayTimeDuration>');
  assert.equal(call('-', [time('11:12:00Z'), time('04:00:00-05:00')]), '"PT2H12M"^^<xsd:dayTimeDuration>');
  assert.equal(call('-', [date('2024-03-01'), date('2024-03-01')]), '"PT0S"^^<xsd:dayTimeDuration>');
  assert.equal(attempt('-', [dt('2000-10-30T06:12:00Z'), date('1999-11-28')]), 'error');
  assert.equal(attempt('+', [dt('2000-10-30T06:12:00Z'), dt('1999-11-28T00:00:00Z')]), 'error');
});

test('a yearMonthDuration moves the month and keeps the day, or the last day of a shorter month', () => {
  assert.equal(call('+', [dt('2000-10-30T11:12:00'), yearMonth('P1Y2M')]), '"2001-12-30T11:12:00"^^<xsd:dateTime>');
  assert.equal(call('+', [date('2000-01-31Z'), yearMonth('P1M')]), '"2000-02-29Z"^^<xsd:date>');
  assert.equal(call('-', [date('2001-03-31'), yearMonth('P1M')]), '"2001-02-28"^^<xsd:date>');
  assert.equal(call('+', [yearMonth('-P13M'), dt('2000-01-15T00:00:00+02:00')]), '"1998-12-15T00:00:00+02:00"^^<xsd:dateTime>');
  assert.equal(attempt('+', [time('10:00:00'), yearMonth('P1M')]), 'error');
});

test('a dayTimeDuration moves a dateTime, a date (whole days of the result) and a time (around the clock)', () => {
  assert.equal(call('+', [dt('2000-10-30T11:12:00Z'), dayTime('P3DT1H15M')]), '"2000-11-02T12:27:00Z"^^<xsd:dateTime>');
  assert.equal(call('-', [dt('2000-01-01T00:00:00.25-05:00'), dayTime('PT0.5S')]), '"1999-12-31T23:59:59.75-05:00"^^<xsd:dateTime>');
  assert.equal(call('+', [date('2004-10-30Z'), dayTime('P2DT2H30M0S')]), '"2004-11-01Z"^^<xsd:date>');
  assert.equal(call('-', [date('2000-01-01'), dayTime('PT1H')]), '"1999-12-31"^^<xsd:date>');
  assert.equal(call('+', [time('11:12:00'), dayTime('P3DT1H15M')]), '"12:27:00"^^<xsd:time>');
  assert.equal(call('-', [time('08:20:00-05:00'), dayTime('P23DT10H10M')]), '"22:10:00-05:00"^^<xsd:time>');
});

test('durations of one subtype add and subtract; other sums are errors', () => {
  assert.equal(call('+', [dayTime('P2DT12H5M'), dayTime('P5DT12H')]), '"P8DT5M"^^<xsd:dayTimeDuration>');
  assert.equal(call('-', [yearMonth('P2Y11M'), yearMonth('P3Y3M')]), '"-P4M"^^<xsd:yearMonthDuration>');
  assert.equal(call('-', [yearMonth('P1Y'), yearMonth('P12M')]), '"P0M"^^<xsd:yearMonthDuration>');
  assert.equal(attempt('+', [dayTime('P1D'), yearMonth('P1M')]), 'error');
  assert.equal(attempt('+', [dayTime('P1D'), int(1)]), 'error');
});

test('numbers still add as numbers', () => {
  assert.equal(call('+', [int(1), int(2)]), '"3"^^<xsd:integer>');
});

test('durations of one subtype compare by length', () => {
  assert.equal(call('<', [yearMonth('P1Y'), yearMonth('P13M')]), '"true"^^<xsd:boolean>');
  assert.equal(call('=', [dayTime('PT36H'), dayTime('P1DT12H')]), '"true"^^<xsd:boolean>');
  assert.equal(call('>', [dayTime('-PT1S'), dayTime('PT0S')]), '"false"^^<xsd:boolean>');
});
