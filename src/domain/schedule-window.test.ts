import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  parseScheduleQuery,
  parseScheduleWindow,
  windowRange,
  type ScheduleWindow,
} from './schedule-window.js';

const NOW = Date.UTC(2026, 7, 22, 10, 30);
const MIDNIGHT = Date.UTC(2026, 7, 22);

describe('schedule window', () => {
  it('defaults to 7 days back with no upper bound', () => {
    expect(parseScheduleWindow(undefined, undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: NOW - 7 * DAY_MS,
    });
  });

  it('reads N from 1 to 365', () => {
    expect(parseScheduleWindow('1', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: NOW - DAY_MS,
    });
    expect(parseScheduleWindow('365', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: NOW - 365 * DAY_MS,
    });
    expect(parseScheduleWindow('0030', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: NOW - 30 * DAY_MS,
    });
  });

  it('maps keywords to half-open UTC days, case-insensitively', () => {
    expect(parseScheduleWindow('today', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: MIDNIGHT,
      toMs: MIDNIGHT + DAY_MS,
    });
    expect(parseScheduleWindow('Tomorrow', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: MIDNIGHT + DAY_MS,
      toMs: MIDNIGHT + 2 * DAY_MS,
    });
    expect(parseScheduleWindow('YESTERDAY', undefined, NOW)).toEqual({
      kind: 'range',
      fromMs: MIDNIGHT - DAY_MS,
      toMs: MIDNIGHT,
    });
    // Exactly midnight belongs to the day it starts.
    expect(parseScheduleWindow('today', undefined, MIDNIGHT)).toEqual({
      kind: 'range',
      fromMs: MIDNIGHT,
      toMs: MIDNIGHT + DAY_MS,
    });
  });

  it('reads all from days=all, all=1 and all=true', () => {
    for (const [days, all] of [
      ['all', undefined],
      ['ALL', undefined],
      [undefined, '1'],
      [undefined, 'True'],
    ] as const) {
      expect(parseScheduleWindow(days, all, NOW)).toEqual({ kind: 'all' });
    }
  });

  it('refuses anything else with the right code', () => {
    for (const days of ['0', '366', '-1', '1.0', ' 1', '', 'week', '１']) {
      expect(() => parseScheduleWindow(days, undefined, NOW), days).toThrow(
        expect.objectContaining({ code: 'INVALID_DAYS' }),
      );
    }
    for (const [days, all] of [
      ['7', '1'],
      [undefined, '0'],
      [undefined, ''],
      ['all', 'true'],
    ] as const) {
      expect(() => parseScheduleWindow(days, all, NOW)).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMETERS' }),
      );
    }
  });
});

describe('schedule query', () => {
  it('refuses bad values before any time is known, and resolves the window at each instant', () => {
    expect(() => parseScheduleQuery('0', undefined)).toThrow(
      expect.objectContaining({ code: 'INVALID_DAYS' }),
    );
    expect(() => parseScheduleQuery('1', 'true')).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMETERS' }),
    );
    const today = parseScheduleQuery('today', undefined);
    expect(today(NOW)).toEqual(parseScheduleWindow('today', undefined, NOW));
    expect(today(NOW + DAY_MS)).toEqual({
      kind: 'range',
      fromMs: MIDNIGHT + DAY_MS,
      toMs: MIDNIGHT + 2 * DAY_MS,
    });
    expect(parseScheduleQuery(undefined, undefined)(NOW + 1000)).toEqual({
      kind: 'range',
      fromMs: NOW + 1000 - 7 * DAY_MS,
    });
  });
});

describe('window range', () => {
  // Four parsed starts (one hour apart from midnight), then two that did not parse.
  const starts = [0, 1, 2, 3].map((h) => MIDNIGHT + h * 3_600_000);
  const total = 6;
  const range = (window: ScheduleWindow) => windowRange(starts, total, window);

  it('selects everything, unparsed starts included, for all', () => {
    expect(range({ kind: 'all' })).toEqual({ from: 0, to: 6 });
  });

  it('selects parsed starts from fromMs on (inclusive), never an unparsed one', () => {
    expect(range({ kind: 'range', fromMs: MIDNIGHT + 3_600_000 })).toEqual({ from: 1, to: 4 });
    expect(range({ kind: 'range', fromMs: MIDNIGHT + 3_600_001 })).toEqual({ from: 2, to: 4 });
    expect(range({ kind: 'range', fromMs: MIDNIGHT - DAY_MS })).toEqual({ from: 0, to: 4 });
    expect(range({ kind: 'range', fromMs: MIDNIGHT + DAY_MS })).toEqual({ from: 4, to: 4 });
  });

  it('stops before toMs (half-open)', () => {
    const window = { kind: 'range', fromMs: MIDNIGHT, toMs: MIDNIGHT + 2 * 3_600_000 } as const;
    expect(range(window)).toEqual({ from: 0, to: 2 });
    expect(range({ ...window, toMs: MIDNIGHT + 2 * 3_600_000 + 1 })).toEqual({ from: 0, to: 3 });
    expect(range({ kind: 'range', fromMs: MIDNIGHT + 1, toMs: MIDNIGHT + 1 })).toEqual({
      from: 1,
      to: 1,
    });
  });

  it('gives an empty range for an empty schedule', () => {
    expect(windowRange([], 0, { kind: 'range', fromMs: 0 })).toEqual({ from: 0, to: 0 });
    expect(windowRange([], 2, { kind: 'all' })).toEqual({ from: 0, to: 2 });
  });
});
