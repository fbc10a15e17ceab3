import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import {
  changesPage,
  changesStart,
  parseChangesQuery,
  type ChangeRecord,
  DEFAULT_CHANGES_LIMIT,
} from './changes.js';

const record = (seq: number): ChangeRecord => ({
  seq,
  kind: 'programme',
  change: 'added',
  channelId: '2f3c1f0e-7a8b-5c9d-8e0f-1a2b3c4d5e6f',
  programmeId: '1000000000000000001',
  start: '20260401060000 +0000',
  atMs: 0,
});

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.code}` : 'other';
  }
  return 'none';
};

describe('the changes query', () => {
  it('reads since, limit, country and channels', () => {
    expect(parseChangesQuery({})).toEqual({
      since: null,
      limit: DEFAULT_CHANGES_LIMIT,
      country: null,
      channels: null,
    });
    expect(
      parseChangesQuery({
        since: '42',
        limit: '1000',
        country: 'uk',
        channels: '2F3C1F0E-7A8B-5C9D-8E0F-1A2B3C4D5E6F',
      }),
    ).toEqual({
      since: 42,
      limit: 1000,
      country: 'UK',
      channels: ['2f3c1f0e-7a8b-5c9d-8e0f-1a2b3c4d5e6f'],
    });
    expect(parseChangesQuery({ since: '0', limit: '1' })).toMatchObject({ since: 0, limit: 1 });
  });

  it.each([
    ['since', '-1'],
    ['since', '1.5'],
    ['since', 'abc'],
    ['since', ''],
    ['since', '9999999999999999'],
    ['limit', '0'],
    ['limit', '1001'],
    ['limit', 'ten'],
    ['channels', 'not-a-uuid'],
  ])('refuses %s=%s with 400 INVALID_PARAMETERS', (name, value) => {
    expect(codeOf(() => parseChangesQuery({ [name]: value }))).toBe('400 INVALID_PARAMETERS');
  });

  it('refuses a malformed country with 400 INVALID_COUNTRY', () => {
    expect(codeOf(() => parseChangesQuery({ country: 'U K' }))).toBe('400 INVALID_COUNTRY');
  });
});

describe('where a read starts', () => {
  it('is since, or the newest record without one', () => {
    expect(changesStart({ since: null }, { newest: 12, horizon: 3 })).toBe(12);
    expect(changesStart({ since: 3 }, { newest: 12, horizon: 3 })).toBe(3);
    expect(changesStart({ since: 12 }, { newest: 12, horizon: 3 })).toBe(12);
  });

  it('refuses a since before the pruned records, or past the newest, with 410', () => {
    expect(codeOf(() => changesStart({ since: 2 }, { newest: 12, horizon: 3 }))).toBe(
      '410 CURSOR_EXPIRED',
    );
    expect(codeOf(() => changesStart({ since: 13 }, { newest: 12, horizon: 3 }))).toBe(
      '410 CURSOR_EXPIRED',
    );
  });
});

describe('a page of changes', () => {
  it('continues after its last record when full, else at the newest', () => {
    expect(changesPage([record(4), record(7), record(9)], 2, 20)).toEqual({
      changes: [record(4), record(7)],
      next: 7,
      hasMore: true,
    });
    expect(changesPage([record(4), record(7)], 2, 20)).toEqual({
      changes: [record(4), record(7)],
      next: 20,
      hasMore: false,
    });
    expect(changesPage([], 2, 20)).toEqual({ changes: [], next: 20, hasMore: false });
  });
});
