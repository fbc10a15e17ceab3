import SwaggerParser from '@apidevtools/swagger-parser';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/schedule-window.js';
import {
  API_ERRORS,
  FEED_OPERATIONS,
  V1_OPERATIONS,
  type ApiErrorCode,
} from '../../src/http/openapi/operation-docs.js';
import {
  ChannelParams,
  ChannelsResponse,
  CountriesResponse,
  CountryParams,
  GuideQuery,
  GuideResponse,
  NowQuery,
  NowResponse,
  ProgrammeSearchQuery,
  ProgrammeSearchResponse,
  ProgrammeParams,
  ProgrammeResponse,
  ProgrammesQuery,
  ProgrammesResponse,
  SearchQuery,
  SearchResponse,
} from '../../src/http/schemas.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean }[];
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: {
        'application/json': {
          schema: Record<string, unknown>;
          examples?: Record<string, { value: unknown }>;
        };
      };
    }
  >;
}
interface Document {
  openapi: string;
  servers: { url: string }[];
  security: Record<string, string[]>[];
  components: { securitySchemes: Record<string, Record<string, string>> };
  paths: Record<string, Record<string, Operation>>;
  info: { description: string };
}

const PUBLIC_URL = 'https://api-b.example.com';
let t: TestApp;
let doc: Document;
let key: string;
let channelId: string;
let programmeId: string;

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL });
  const { channelIds } = await seedCatalogue(
    t.temp.store,
    [{ xmltvId: 'news.uk', name: 'Onair News', country: 'UK' }],
    [{ channel: 'news.uk', startMs: TEST_NOW - DAY_MS }],
  );
  channelId = channelIds.get('news.uk') ?? '';
  key = (await t.customer()).key;
  const schedule = await t.get(`/api/v1/channels/${channelId}/programmes?days=all`, key);
  programmeId = schedule.json().programmes[0].id;
  const res = await t.get('/openapi.json');
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

afterAll(async () => {
  await t?.close();
});

/** The route schema with TypeBox's own markers dropped: plain JSON Schema, as documented. */
const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const operation = (path: string) => doc.paths[path]?.get as Operation;
/** The keyed v1 routes of the document (the feed routes are keyless, documented apart). */
const v1Paths = () => Object.keys(doc.paths).filter((path) => path.startsWith('/api/v1/'));

describe('GET /openapi.json', () => {
  it('is public JSON, outside /api/v1, readable from other sites', async () => {
    const res = await t.get('/openapi.json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(doc.openapi).toBe('3.1.0');
  });

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    // validate() dereferences in place: give it a copy.
    const validated = await SwaggerParser.validate(structuredClone(doc) as never);
    expect((validated as { openapi: string }).openapi).toBe('3.1.0');
  });

  it("names this deployment's PUBLIC_URL as the server", () => {
    expect(doc.servers.map((s) => s.url)).toEqual([PUBLIC_URL]);
  });

  it('has exactly the v1 and feed routes, GET only, each with its operation id', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [...Object.keys(V1_OPERATIONS), ...Object.keys(FEED_OPERATIONS)].sort(),
    );
    for (const [path, methods] of Object.entries(doc.paths)) {
      expect(Object.keys(methods), path).toEqual(['get']);
      expect(operation(path).operationId).toBe(
        (V1_OPERATIONS[path] ?? FEED_OPERATIONS[path])?.operationId,
      );
    }
  });

  it('documents the feed routes: keyless, XMLTV or gzip, their own errors', async () => {
    for (const [path, feedDoc] of Object.entries(FEED_OPERATIONS)) {
      const op = operation(path) as Operation & { security: unknown[]; tags: string[] };
      expect(op.security, path).toEqual([]);
      expect(op.tags).toEqual(['Feeds']);
      expect(Object.keys(op.responses['200']?.content ?? {})).toEqual([feedDoc.mediaType]);
      expect(Object.keys(op.responses['200']?.headers ?? {})).toEqual(['ETag', 'Last-Modified']);
      expect(Object.keys(op.responses).sort()).toEqual(
        ['200', '304', '403', '404', '429', '500', '503'].sort(),
      );
      // The 404 documented is the one an unknown token gets.
      const example = op.responses['404']?.content?.['application/json'].examples?.NOT_FOUND;
      const res = await t.get(path.replace('{token}', 'x'.repeat(43)));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(example?.value);
    }
  });

  it('offers both auth schemes, either one on every route', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
  });

  it('takes parameters and response bodies from the route schemas themselves', () => {
    const routes: [string, TSchema, TSchema | null, TSchema | null][] = [
      ['/api/v1/countries', CountriesResponse, null, null],
      ['/api/v1/countries/{country}/channels', ChannelsResponse, CountryParams, null],
      ['/api/v1/channels/search', SearchResponse, null, SearchQuery],
      [
        '/api/v1/channels/{channelId}/programmes',
        ProgrammesResponse,
        ChannelParams,
        ProgrammesQuery,
      ],
      [
        '/api/v1/channels/{channelId}/programmes/{programmeId}',
        ProgrammeResponse,
        ProgrammeParams,
        null,
      ],
      ['/api/v1/guide', GuideResponse, null, GuideQuery],
      ['/api/v1/now', NowResponse, null, NowQuery],
      ['/api/v1/programmes/search', ProgrammeSearchResponse, null, ProgrammeSearchQuery],
    ];
    for (const [path, response, params, query] of routes) {
      const op = operation(path);
      expect(op.responses['200']?.content?.['application/json'].schema, path).toEqual(
        plain(response),
      );
      const names = (where: string) =>
        (op.parameters ?? []).filter((p) => p.in === where).map((p) => p.name);
      expect(names('path')).toEqual(
        Object.keys((params as { properties?: object })?.properties ?? {}),
      );
      expect(names('query')).toEqual(
        Object.keys((query as { properties?: object })?.properties ?? {}),
      );
      expect(names('header')).toEqual(['If-None-Match']);
    }
  });

  it('gives every operation an example answer that its own response schema accepts', () => {
    const schemas: Record<string, TSchema> = {
      listCountries: CountriesResponse,
      listChannels: ChannelsResponse,
      searchChannels: SearchResponse,
      listProgrammes: ProgrammesResponse,
      getProgramme: ProgrammeResponse,
      getGuide: GuideResponse,
      getNowNext: NowResponse,
      searchProgrammes: ProgrammeSearchResponse,
    };
    for (const path of v1Paths()) {
      const op = operation(path);
      const examples = op.responses['200']?.content?.['application/json'].examples ?? {};
      const values = Object.values(examples).map((e) => e.value);
      expect(values.length, path).toBeGreaterThan(0);
      const schema = schemas[op.operationId] as TSchema;
      for (const value of values) expect(Value.Check(schema, value), path).toBe(true);
    }
  });

  it('documents every error status and code, with Retry-After on 429 and 503', () => {
    const documented = new Set<string>();
    for (const path of v1Paths()) {
      const { responses } = operation(path);
      expect(Object.keys(responses)).toEqual(
        expect.arrayContaining(['200', '304', '401', '403', '429', '500', '503']),
      );
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        const examples = response.content?.['application/json'].examples ?? {};
        expect(Object.keys(examples).length, `${path} ${status}`).toBeGreaterThan(0);
        for (const [code, example] of Object.entries(examples)) {
          expect(API_ERRORS[code as ApiErrorCode].example.status, code).toBe(Number(status));
          expect(example.value).toEqual({
            error: API_ERRORS[code as ApiErrorCode].example.message,
            code,
          });
          expect(response.description).toContain(code);
          documented.add(code);
        }
        if (status === '429' || status === '503') {
          expect(Object.keys(response.headers ?? {})).toEqual(['Retry-After']);
        }
      }
    }
    // Every code a GET can get is on some route; the others are in the introduction's table.
    for (const code of Object.keys(API_ERRORS))
      expect(doc.info.description).toContain(`\`${code}\``);
    expect([...documented].sort()).toEqual(
      [
        'ACCESS_EXPIRED',
        'ACCOUNT_DISABLED',
        'BAD_REQUEST',
        'CHANNEL_NOT_FOUND',
        'PROGRAMME_NOT_FOUND',
        'EMAIL_NOT_VERIFIED',
        'INTERNAL_ERROR',
        'INVALID_COUNTRY',
        'INVALID_DAYS',
        'INVALID_PARAMETERS',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
        'UNAUTHORIZED',
      ].sort(),
    );
  });
});

describe('the documented errors are the ones the routes answer', () => {
  /** Real requests that end in each code the documents lists for a route. */
  const provoke = async (
    path: string,
    code: ApiErrorCode,
  ): Promise<{ statusCode: number; body: { error: string; code: string } } | null> => {
    /** The guide and now/next: no path parameters, a channel selection in the query. */
    const grid = path === '/api/v1/guide' || path === '/api/v1/now';
    const url = path
      .replace('{country}', code === 'INVALID_COUNTRY' ? 'U$' : 'UK')
      .replace(
        '{channelId}',
        code === 'CHANNEL_NOT_FOUND' ? channelId.replace(/.$/, '0') : channelId,
      )
      .replace(
        '{programmeId}',
        // Another programme id of the same form: the channel has only the one programme.
        code === 'PROGRAMME_NOT_FOUND'
          ? programmeId.replace(/.$/, (d) => (d === '0' ? '1' : '0'))
          : programmeId,
      );
    const send = async (target: string, withKey: string | null) => {
      const res = await t.get(target, withKey);
      return { statusCode: res.statusCode, body: res.json() };
    };
    switch (code) {
      case 'UNAUTHORIZED':
        return send(url, null);
      case 'EMAIL_NOT_VERIFIED': {
        const unverified = await t.createAccount(`unverified-${path.length}@example.com`, {
          verifiedAt: null,
        });
        return send(url, await t.createKey(unverified));
      }
      case 'ACCESS_EXPIRED': {
        const old = await t.createAccount(`old-${path.length}@example.com`, {
          verifiedAt: TEST_NOW - 30 * DAY_MS,
        });
        return send(url, await t.createKey(old));
      }
      case 'ACCOUNT_DISABLED': {
        const off = await t.createAccount(`off-${path.length}@example.com`);
        await t.temp.store.accounts.updateAccount(off.id, { disabled: true }, TEST_NOW);
        return send(url, await t.createKey(off));
      }
      case 'RATE_LIMITED': {
        const slow = await t.createAccount(`slow-${path.length}@example.com`, { rateLimit: 1 });
        const slowKey = await t.createKey(slow);
        await send(url, slowKey);
        return send(url, slowKey);
      }
      case 'INVALID_COUNTRY':
        if (grid) return send(`${url}?country=U$`, key);
        return send(path.includes('search') ? `${url}?q=a&country=U$` : url, key);
      case 'INVALID_DAYS':
        return send(`${url}?days=366`, key);
      case 'INVALID_PARAMETERS':
        // Both selections at once: exactly one is allowed.
        if (grid) return send(`${url}?country=UK&channels=${channelId}`, key);
        return send(path.includes('search') ? `${url}?q=a&q=b` : `${url}?days=1&all=1`, key);
      case 'BAD_REQUEST':
        // No path parameter to break: the path itself, which is decoded before any route.
        if (grid || path === '/api/v1/programmes/search')
          return send(`${url}%E0%A4%A?country=UK`, key);
        return send(url.replace(path.includes('country') ? 'UK' : channelId, '%E0%A4%A'), key);
      case 'CHANNEL_NOT_FOUND':
      case 'PROGRAMME_NOT_FOUND':
        return send(url, key);
      default:
        // INTERNAL_ERROR and SERVICE_UNAVAILABLE need a broken server (see postgres-outage).
        return null;
    }
  };

  it('for every route, status and code in the document', async () => {
    let checked = 0;
    for (const path of v1Paths()) {
      for (const [status, response] of Object.entries(operation(path).responses)) {
        if (Number(status) < 400) continue;
        for (const code of Object.keys(response.content?.['application/json'].examples ?? {})) {
          const res = await provoke(path, code as ApiErrorCode);
          if (res === null) continue;
          expect({ path, status: res.statusCode, code: res.body.code }).toEqual({
            path,
            status: Number(status),
            code,
          });
          if (code !== 'BAD_REQUEST' && code !== 'INVALID_PARAMETERS') {
            expect(res.body.error).toBe(API_ERRORS[code as ApiErrorCode].example.message);
          }
          checked += 1;
        }
      }
    }
    // 5 guard codes on each of 8 routes, and the routes' own 2 + 2 + 4 + 3 + 3 + 3 + 3.
    expect(checked).toBe(60);
  });

  it('and a 200 answer of each route is valid against the documented schema', async () => {
    // The seeded programme is on a day ago: the grid and now/next look there to show it.
    const during = new Date(TEST_NOW - DAY_MS + 10 * 60_000).toISOString();
    for (const [url, schema] of [
      ['/api/v1/countries', CountriesResponse],
      ['/api/v1/countries/uk/channels', ChannelsResponse],
      ['/api/v1/channels/search?q=news', SearchResponse],
      [`/api/v1/channels/${channelId}/programmes?days=3`, ProgrammesResponse],
      [`/api/v1/channels/${channelId}/programmes/${programmeId}`, ProgrammeResponse],
      [`/api/v1/guide?channels=${channelId}&from=${during}&hours=1`, GuideResponse],
      [`/api/v1/now?country=uk&at=${during}`, NowResponse],
      ['/api/v1/guide?country=uk', GuideResponse],
      ['/api/v1/now?country=uk', NowResponse],
      [`/api/v1/programmes/search?q=programme&from=${during}`, ProgrammeSearchResponse],
    ] as const) {
      const res = await t.get(url, key);
      expect(res.statusCode, url).toBe(200);
      expect(Value.Check(schema, res.json()), url).toBe(true);
    }
    // The checks above saw full entries, not only empty lists.
    const grid = await t.get(`/api/v1/guide?channels=${channelId}&from=${during}`, key);
    expect(grid.json().channels[0].programmes.map((p: { id: string }) => p.id)).toEqual([
      programmeId,
    ]);
    const now = await t.get(`/api/v1/now?country=uk&at=${during}`, key);
    expect(now.json().channels[0].now.id).toBe(programmeId);
    const found = await t.get(
      `/api/v1/programmes/search?q=program&from=${new Date(TEST_NOW - DAY_MS).toISOString()}`,
      key,
    );
    expect(found.json().results[0].programme.id).toBe(programmeId);
  });
});

describe('OpenAPI servers without PUBLIC_URL', () => {
  it('follow the address the server listens on', async () => {
    const local = await createTestApp();
    try {
      const served = (await local.get('/openapi.json')).json() as Document;
      expect(served.servers.map((s) => s.url)).toEqual([local.config.publicUrl]);
      local.services.site.listeningAt('http://127.0.0.1:4567');
      const moved = (await local.get('/openapi.json')).json() as Document;
      expect(moved.servers.map((s) => s.url)).toEqual(['http://127.0.0.1:4567']);
    } finally {
      await local.close();
    }
  });
});
