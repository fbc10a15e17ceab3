import { describe, expect, it } from 'vitest';
import { toLineupChannel } from './feed-rows.js';

describe('toLineupChannel', () => {
  const row = (displayNames: string) => ({
    id: 'c',
    xmltv_id: 'c.uk',
    name: 'C',
    display_names: displayNames,
    icon: '',
  });

  it('reads the display-names as the merge writes them, and as the first build wrote them', () => {
    expect(toLineupChannel(row('[{"value":"C","lang":"en"},{"value":"101","lang":""}]'))).toEqual({
      id: 'c',
      xmltvId: 'c.uk',
      name: 'C',
      displayNames: [
        { value: 'C', lang: 'en' },
        { value: '101', lang: '' },
      ],
      icon: '',
    });
    // Bare texts (stored on 2026-12-01 before the lang was kept), and nothing else.
    expect(toLineupChannel(row('["C","101",7,null,{"lang":"x"}]')).displayNames).toEqual([
      { value: 'C', lang: '' },
      { value: '101', lang: '' },
    ]);
    expect(toLineupChannel(row('[]')).displayNames).toEqual([]);
  });
});
