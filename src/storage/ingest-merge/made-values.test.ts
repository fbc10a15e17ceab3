import { describe, expect, it } from 'vitest';
import { programmeIdFor } from '../../domain/programme-id.js';
import { searchTextOf } from '../../domain/programme-search.js';
import { joinSearchedTexts } from '../search-text-memo.js';
import { madeValuesCompletion } from './made-values.js';

describe('madeValuesCompletion', () => {
  it('makes nothing for a table without made values', () => {
    expect(madeValuesCompletion({ programmeIdOf: null, searchTextAt: null })).toBeNull();
  });

  it('puts the search text in place of the searched texts and the id after the row', () => {
    const completion = madeValuesCompletion({ programmeIdOf: [0, 1], searchTextAt: 2 });
    expect(completion?.appended).toBe(1);
    // Two rows of three values and their id, as unpackRows lays them out.
    const texts = [
      ['Star Trek', 'Été à Paris'],
      ['Łódź', 'ΟΔΥΣΣΕΑΣ'],
    ];
    const values = texts.flatMap((t, i) => ['c', `start ${i}`, joinSearchedTexts(t), null]);
    completion?.complete(values, 0, 3);
    completion?.complete(values, 4, 7);
    expect(values).toEqual(
      texts.flatMap((t, i) => [
        'c',
        `start ${i}`,
        searchTextOf(t),
        programmeIdFor('c', `start ${i}`),
      ]),
    );
    expect(values[2]).toBe('star trek ete a paris');
  });
});
