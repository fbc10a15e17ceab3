import { describe, expect, it } from 'vitest';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, registerFixture, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let key: string;

async function setUp(): Promise<void> {
  t = await createTestApp();
  ({ key } = await t.customer());
  await seedCatalogue(t.temp.store, [
    { xmltvId: 'bbc1.uk', name: 'BBC One', country: 'UK', icon: 'https://img.example/bbc1.png' },
    { xmltvId: 'bbc2.uk', name: 'bbc Two', country: 'UK' },
    { xmltvId: 'alpha.uk', name: 'Alpha', country: 'UK', needsReview: true },
    { xmltvId: 'tele.fr', name: 'Télé Lumière', country: 'FR' },
    { xmltvId: 'tele2.fr', name: 'TELE 2', country: 'FR' },
    { xmltvId: 'pct.fr', name: '100% Musique_Live', country: 'FR' },
    { xmltvId: 'eins.de', name: 'Das Erste', country: 'DE' },
    { xmltvId: 'odd.us-ca', name: 'Coast TV', country: 'US-CA' },
  ]);
}

/** The app above, a new one for each test or one the describe's tests share (they only read). */
const seededApp = (scope: 'each' | 'all') => registerFixture(scope, setUp, () => t.close());

/** The names `/api/v1/channels/search` answers with for `query`. */
async function names(query: string): Promise<string[]> {
  const res = await t.get(`/api/v1/channels/search${query}`, key);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { results: { name: string }[] }).results.map((r) => r.name);
}

describe('GET /api/v1/countries', () => {
  seededApp('each');

  it('lists every country with its channel count, ordered by code', async () => {
    const res = await t.get('/api/v1/countries', key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      countries: [
        { country: 'DE', channelCount: 1 },
        { country: 'FR', channelCount: 3 },
        { country: 'UK', channelCount: 3 },
        { country: 'US-CA', channelCount: 1 },
      ],
    });
  });

  it('sends an ETag; 304 for If-None-Match until an ingest changes the catalogue', async () => {
    const first = await t.get('/api/v1/countries', key);
    const etag = String(first.headers.etag);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await t.get('/api/v1/countries', key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Compared weakly (RFC 9110): the strong form of the tag, or it among others, is the same.
    for (const ifNoneMatch of [etag.slice(2), `"other", ${etag.slice(2)}`, `W/"x", ${etag}`]) {
      expect(
        (await t.get('/api/v1/countries', key, { 'if-none-match': ifNoneMatch })).statusCode,
      ).toBe(304);
    }
    await seedCatalogue(t.temp.store, [{ xmltvId: 'new.it', name: 'Nuovo', country: 'IT' }]);
    const changed = await t.get('/api/v1/countries', key, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().countries).toContainEqual({ country: 'IT', channelCount: 1 });
    const search = await t.get('/api/v1/channels/search?q=nuovo', key);
    expect(search.json().results.map((r: { name: string }) => r.name)).toEqual(['Nuovo']);
  });

  it('answers an empty catalogue with an empty list', async () => {
    await t.temp.sql('DELETE FROM programmes');
    await t.temp.sql('DELETE FROM channels');
    const res = await t.get('/api/v1/countries', key);
    expect(res.json()).toEqual({ countries: [] });
  });
});

describe('GET /api/v1/countries/:country/channels', () => {
  seededApp('all');

  it('lists the channels of a country by name, case-insensitive, with the spec fields', async () => {
    const res = await t.get('/api/v1/countries/UK/channels', key);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { country: string; channels: Record<string, unknown>[] };
    expect(body.country).toBe('UK');
    expect(body.channels.map((c) => c.name)).toEqual(['Alpha', 'BBC One', 'bbc Two']);
    expect(Object.keys(body.channels[0] ?? {}).sort()).toEqual(
      ['country', 'icon', 'id', 'name', 'needsReview'].sort(),
    );
    expect(body.channels[0]).toMatchObject({ icon: '', needsReview: true, country: 'UK' });
    expect(body.channels[1]).toMatchObject({
      icon: 'https://img.example/bbc1.png',
      needsReview: false,
    });
    expect(body.channels[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('matches the code case-insensitively and answers with the stored form', async () => {
    const res = await t.get('/api/v1/countries/us-ca/channels', key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ country: 'US-CA', channels: [{ name: 'Coast TV' }] });
  });

  it('answers a valid but unknown code with 200 and no channels', async () => {
    const res = await t.get('/api/v1/countries/XX/channels', key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ country: 'XX', channels: [] });
    const long = await t.get(`/api/v1/countries/${'A'.repeat(16)}/channels`, key);
    expect(long.statusCode).toBe(200);
  });

  it.each(['U_K', 'U.K', 'ÜK', 'A'.repeat(17), 'U%20K', '%2F', 'uk%00', 'a%2Fb', 'U+K'])(
    'an invalid code %j → 400 INVALID_COUNTRY',
    async (code) => {
      const res = await t.get(`/api/v1/countries/${code}/channels`, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'INVALID_COUNTRY' });
    },
  );
});

describe('GET /api/v1/channels/search', () => {
  seededApp('all');

  it('matches a case- and accent-insensitive substring, ordered by name', async () => {
    expect(await names('?q=tele')).toEqual(['TELE 2', 'Télé Lumière']);
    expect(await names('?q=T%C3%89L%C3%89')).toEqual(['TELE 2', 'Télé Lumière']);
    expect(await names('?q=bbc')).toEqual(['BBC One', 'bbc Two']);
    expect(await names('?q=ne')).toEqual(['BBC One']);
  });

  it('returns the search result fields', async () => {
    const res = await t.get('/api/v1/channels/search?q=erste', key);
    const result = (res.json() as { results: Record<string, unknown>[] }).results[0];
    expect(Object.keys(result ?? {}).sort()).toEqual(
      ['channelId', 'country', 'icon', 'name', 'needsReview'].sort(),
    );
    expect(result).toMatchObject({
      name: 'Das Erste',
      country: 'DE',
      icon: '',
      needsReview: false,
    });
  });

  it('treats % and _ as plain characters', async () => {
    expect(await names('?q=%25')).toEqual(['100% Musique_Live']);
    expect(await names('?q=_')).toEqual(['100% Musique_Live']);
  });

  it('trims q; blank or missing q gives an empty list', async () => {
    expect(await names('?q=%20%20tele%20')).toEqual(['TELE 2', 'Télé Lumière']);
    expect(await names('?q=%20%20')).toEqual([]);
    expect(await names('?q=')).toEqual([]);
    expect(await names('')).toEqual([]);
  });

  it('restricts to a country, case-insensitively; blank country searches all', async () => {
    expect(await names('?q=e&country=fr')).toEqual(['100% Musique_Live', 'TELE 2', 'Télé Lumière']);
    expect(await names('?q=erste&country=')).toEqual(['Das Erste']);
    expect(await names('?q=erste&country=%20')).toEqual(['Das Erste']);
    expect(await names('?q=erste&country=FR')).toEqual([]);
  });

  it('tags each answer with its own ETag, a blank search too, and the same headers', async () => {
    const etags = new Map<string, string>();
    // Searches whose texts a header cannot hold as they are.
    for (const query of ['?q=e%202', '?q=e_2', '?q=%E4%B8%AD', '?q=%E6%96%87', '', '?q=%20']) {
      const res = await t.get(`/api/v1/channels/search${query}`, key);
      expect(res.statusCode, query).toBe(200);
      expect(res.headers['cache-control'], query).toBe('private, no-cache');
      const etag = String(res.headers.etag);
      expect(etag, query).toMatch(/^W\/"[\x21\x23-\x7e]*"$/);
      etags.set(query, etag);
      const again = await t.get(`/api/v1/channels/search${query}`, key, { 'if-none-match': etag });
      expect(again.statusCode, query).toBe(304);
    }
    expect((await t.get('/api/v1/channels/search?q=e%202', key)).json()).not.toEqual(
      (await t.get('/api/v1/channels/search?q=e_2', key)).json(),
    );
    expect(etags.get('?q=e%202')).not.toBe(etags.get('?q=e_2'));
    expect(etags.get('?q=%E4%B8%AD')).not.toBe(etags.get('?q=%E6%96%87'));
    // Blank or missing, one answer: no results.
    expect(etags.get('')).toBe(etags.get('?q=%20'));
    expect((await t.get('/api/v1/channels/search', key)).body).toBe('{"results":[]}');
  });

  it('an invalid country → 400 INVALID_COUNTRY, even with a blank q', async () => {
    for (const query of ['?q=a&country=F_R', `?q=a&country=${'A'.repeat(17)}`, '?country=x.y']) {
      const res = await t.get(`/api/v1/channels/search${query}`, key);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('INVALID_COUNTRY');
    }
  });

  it('a repeated q or country → 400', async () => {
    for (const [query, name] of [
      ['?q=a&q=b', 'q'],
      ['?q=a&country=UK&country=FR', 'country'],
    ] as const) {
      const res = await t.get(`/api/v1/channels/search${query}`, key);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toEqual({
        error: `Parameter ${name} is given more than once`,
        code: 'INVALID_PARAMETERS',
      });
    }
  });
});

describe('GET /api/v1/channels/search, channels added', () => {
  seededApp('each');

  it('cuts q to 200 characters instead of rejecting it', async () => {
    const long = 'x'.repeat(200);
    await seedCatalogue(t.temp.store, [{ xmltvId: 'long.uk', name: `${long}Z`, country: 'UK' }]);
    expect(await names(`?q=${long}`)).toEqual([`${long}Z`]);
    // 201 characters would not match the name, but the 201st is cut off.
    expect(await names(`?q=${long}Q`)).toEqual([`${long}Z`]);
    expect(await names(`?q=${'y'.repeat(5000)}`)).toEqual([]);
  });

  it('returns at most 200 results, ordered by name then id', async () => {
    const many = Array.from({ length: 250 }, (_, i) => ({
      xmltvId: `many${i}.uk`,
      name: `Many ${String(i).padStart(3, '0')}`,
      country: 'UK',
    }));
    await seedCatalogue(t.temp.store, many);
    const found = await names('?q=many');
    expect(found).toHaveLength(200);
    expect(found[0]).toBe('Many 000');
    expect(found[199]).toBe('Many 199');
  });
});
