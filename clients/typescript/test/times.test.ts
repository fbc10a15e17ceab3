import { describe, expect, it } from 'vitest';
import { xmltvTime } from '../src/index.js';

describe('xmltvTime', () => {
  it('reads the API’s times as Dates', () => {
    expect(xmltvTime('20260822183000 +0000')?.toISOString()).toBe('2026-08-22T18:30:00.000Z');
    expect(xmltvTime('20261231235959 +0000')?.toISOString()).toBe('2026-12-31T23:59:59.000Z');
    expect(xmltvTime('20280229000000 +0000')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    // Years before 100 are years, not 1900 and after.
    expect(xmltvTime('00500101000000 +0000')?.toISOString()).toBe('0050-01-01T00:00:00.000Z');
  });

  it('gives null for what is not one: a missing stop, a time passed on as written', () => {
    for (const text of [
      '',
      'tomorrow',
      '20260822183000',
      '20260822183000 +0200',
      '20260230120000 +0000',
      '20261322183000 +0000',
      '20260822240000 +0000',
      '20260822186000 +0000',
      '20260822183060 +0000',
      '20260822235960 +0000',
      ' 20260822183000 +0000',
    ]) {
      expect(xmltvTime(text), text).toBeNull();
    }
  });
});
