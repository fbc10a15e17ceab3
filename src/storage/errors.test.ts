import { describe, expect, it } from 'vitest';
import { isStorageUnavailable } from './errors.js';

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
