import { describe, expect, it } from 'vitest';
import { describeStorageWriteFailure, isStorageUnavailable, reportPassFailure } from './errors.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isStorageUnavailable', () => {
  it('recognises an unreachable or shut-down database', () => {
    for (const error of [
      coded('ECONNREFUSED'),
      coded('57P01', 'terminating connection due to administrator command'),
      coded('08006'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new AggregateError([coded('ECONNREFUSED')], 'connect failed'),
      coded('SQLITE_BUSY'),
      coded('SQLITE_FULL', 'database or disk is full'),
      coded('SQLITE_READONLY', 'attempt to write a readonly database'),
      coded('53100', 'could not extend file: No space left on device'),
    ]) {
      expect(isStorageUnavailable(error), String(error)).toBe(true);
    }
  });

  it('leaves real bugs and bad data alone', () => {
    for (const error of [new Error('boom'), coded('23505'), coded('42P01'), 'text', null]) {
      expect(isStorageUnavailable(error), String(error)).toBe(false);
    }
  });
});

describe('describeStorageWriteFailure', () => {
  it('says in words why writes fail', () => {
    expect(describeStorageWriteFailure(coded('SQLITE_READONLY'))).toMatch(/read-only/);
    expect(describeStorageWriteFailure(coded('SQLITE_READONLY_DBMOVED'))).toMatch(/read-only/);
    expect(describeStorageWriteFailure(coded('25006'))).toMatch(/read-only/);
    expect(describeStorageWriteFailure(coded('SQLITE_FULL'))).toMatch(/is full/);
    expect(describeStorageWriteFailure(coded('53100'))).toMatch(/is full/);
    expect(describeStorageWriteFailure(coded('SQLITE_IOERR_WRITE'))).toMatch(/SQLITE_IOERR_WRITE/);
  });

  it('is null for anything else', () => {
    for (const error of [coded('SQLITE_CONSTRAINT'), coded('23505'), new Error('x'), 'text']) {
      expect(describeStorageWriteFailure(error)).toBeNull();
    }
  });
});

describe('reportPassFailure', () => {
  const recorder = () => {
    const lines: string[] = [];
    return {
      lines,
      log: {
        warn: (obj: object, msg: string) => lines.push(`warn ${msg} ${JSON.stringify(obj)}`),
        error: (_obj: object, msg: string) => lines.push(`error ${msg}`),
      },
    };
  };

  it('says a database out of reach in one line, anything else as an error', () => {
    const { lines, log } = recorder();
    reportPassFailure(log, 'webhook delivery pass', coded('57P01', 'terminating connection'));
    reportPassFailure(log, 'source refresh pass', new TypeError('x is undefined'));
    expect(lines).toEqual([
      'warn webhook delivery pass skipped: storage unavailable; tried again at the next pass {"error":"terminating connection"}',
      'error source refresh pass failed',
    ]);
  });
});
