import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/domain/errors.js';
import { CREDIT_ROLES } from '../../src/domain/programme-details.js';
import { DAY_MS } from '../../src/domain/schedule-window.js';
import {
  API_ERRORS,
  errorExampleOf,
  FEED_OPERATIONS,
  PARAMETER_DOCS,
  V1_OPERATIONS,
  type ApiErrorCode,
  type OperationDoc,
} from '../../src/http/openapi/operation-docs.js';
import {
  ChannelEntry,
  ChannelParams,
  ChannelsResponse,
  CountriesResponse,
  CountryEntry,
  CountryParams,
  ErrorBody,
  GuideChannelEntry,
  GuideQuery,
  GuideResponse,
  NowChannelEntry,
  NowQuery,
  NowResponse,
  ProgrammeEntry,
  ProgrammeSearchQuery,
  ProgrammeSearchResponse,
  ChangesResponse,
  ProgrammeParams,
  ProgrammeResponse,
  ProgrammesQuery,
  ProgrammesResponse,
  RichProgrammeEntry,
  SearchQuery,
  SearchResponse,
  SearchResultEntry,
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
  components: {
    securitySchemes: Record<string, Record<string, string>>;
    schemas: Record<string, Record<string, unknown>>;
  };
  paths: Record<string, Record<string, Operation>>;
  info: { description: string; license: unknown };
}

const PUBLIC_URL = 'https://api-b.example.com';
let t: TestApp;
let doc: Document;
/** The document with every `$ref` replaced by what it names. */
let whole: Document;
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
  whole = (await SwaggerParser.dereference(structuredClone(doc) as never)) as unknown as Document;
});

afterAll(async () => {
  await t?.close();
});

/** The route schema with TypeBox's own markers dropped: plain JSON Schema, as documented. */
const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const operation = (path: string) => doc.paths[path]?.get as Operation;
/** The keyed v1 routes of the document (the feed routes are keyless, documented apart). */
const v1Paths = () => Object.keys(doc.paths).filter((path) => path.startsWith('/api/v1/'));
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every schema object with a `title` under `node`, examples and enumerations aside. */
function titledSchemas(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) titledSchemas(item, found);
  else if (node !== null && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    if (typeof object.title === 'string') found.push(object.title);
    for (const [key, value] of Object.entries(object)) {
      if (!['example', 'examples', 'enum', 'const', 'default'].includes(key)) {
        titledSchemas(value, found);
      }
    }
  }
  return found;
}

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
      // Named in the document (a $ref), and exactly the route's schema once resolved.
      expect(op.responses['200']?.content?.['application/json'].schema, path).toEqual(
        ref(plain(response).title as string),
      );
      const resolved = whole.paths[path]?.get as Operation;
      expect(resolved.responses['200']?.content?.['application/json'].schema, path).toEqual(
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

  it('describes the request a webhook receives (OpenAPI 3.1 webhooks), signed, with Change records', async () => {
    const { webhooks, components } = doc as unknown as {
      webhooks: Record<string, { post: Record<string, unknown> }>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const post = webhooks.changes?.post as {
      tags: string[];
      parameters: { name: string; in: string; example?: string }[];
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(post.tags).toEqual(['Webhooks']);
    expect(post.requestBody.content['application/json']?.schema).toEqual(ref('WebhookPayload'));
    expect(components.schemas.WebhookPayload?.properties?.changes).toMatchObject({
      items: ref('Change'),
      maxItems: 1000,
    });
    const signature = post.parameters.find((p) => p.name === 'Onair-Signature');
    expect(signature).toMatchObject({ in: 'header' });
    expect(signature?.example).toMatch(/^t=1787383200,v1=[0-9a-f]{64}$/);
  });

  it('declares each shape of the contract once, in components.schemas, and refers to it', () => {
    expect(Object.keys(doc.components.schemas)).toEqual([
      'Audio',
      'Change',
      'Changes',
      'Channel',
      'ChannelList',
      'ChannelSearchResults',
      'ChannelSummary',
      'Country',
      'CountryList',
      'Credit',
      'EpisodeNumber',
      'Error',
      'Guide',
      'GuideChannel',
      'LangText',
      'NowNext',
      'NowNextChannel',
      'PreviouslyShown',
      'Programme',
      'ProgrammeDetail',
      'ProgrammeSearchResult',
      'ProgrammeSearchResults',
      'RichProgramme',
      'Schedule',
      'Subtitles',
      'SystemValue',
      'Video',
      'WebhookPayload',
    ]);
    // Nothing named is inlined, in an operation or in another named schema.
    expect(titledSchemas(doc.paths)).toEqual([]);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(titledSchemas(schema.properties ?? {}), name).toEqual([]);
    }
    // One error body, referred to by every error answer of every route (it was inlined in each).
    let errorAnswers = 0;
    for (const path of Object.keys(doc.paths)) {
      for (const [status, response] of Object.entries(operation(path).responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json'].schema, `${path} ${status}`).toEqual(
          ref('Error'),
        );
        errorAnswers += 1;
      }
    }
    expect(errorAnswers).toBeGreaterThan(40);
    expect(doc.components.schemas.Schedule?.properties).toMatchObject({
      programmes: { type: 'array', items: ref('Programme') },
    });
    expect(doc.components.schemas.NowNextChannel?.properties).toMatchObject({
      now: { anyOf: [ref('RichProgramme'), { type: 'null' }] },
    });
    // Each named shape, resolved, is the schema the routes serialise with.
    const { $id, ...errorBody } = plain(ErrorBody);
    expect($id).toBe('ErrorBody');
    for (const [name, schema] of [
      ['Error', errorBody],
      ['Country', plain(CountryEntry)],
      ['Channel', plain(ChannelEntry)],
      ['ChannelSummary', plain(SearchResultEntry)],
      ['Programme', plain(ProgrammeEntry)],
      ['RichProgramme', plain(RichProgrammeEntry)],
      ['GuideChannel', plain(GuideChannelEntry)],
      ['NowNextChannel', plain(NowChannelEntry)],
    ] as const) {
      expect(whole.components.schemas[name], name).toEqual(schema);
    }
  });

  it('gives the error code, the days and every closed set an enum', async () => {
    const { schemas } = doc.components;
    const codes = (schemas.Error?.properties as Record<string, unknown>).code;
    expect(codes).toMatchObject({ type: 'string', enum: Object.keys(ERROR_STATUS) });
    const credit = (schemas.Credit?.properties as Record<string, unknown>).role;
    expect(credit).toEqual({ type: 'string', enum: [...CREDIT_ROLES] });
    const query = (path: string, name: string) =>
      (operation(path).parameters ?? []).find((p) => p.name === name) as unknown as {
        schema: { enum?: string[]; anyOf?: { enum?: string[] }[] };
      };
    const schedule = '/api/v1/channels/{channelId}/programmes';
    const days = query(schedule, 'days').schema.anyOf?.flatMap((s) => s.enum ?? []);
    expect(days).toEqual(['today', 'tomorrow', 'yesterday', 'all']);
    const all = query(schedule, 'all').schema.enum;
    expect(all).toEqual(['1', 'true']);
    // The route takes every value the document lists (the schemas do not check them: the route
    // answers its own 400 INVALID_DAYS).
    for (const [name, values] of [
      ['days', [...(days ?? []), '7', '365']],
      ['all', all ?? []],
    ] as const) {
      for (const value of values) {
        const res = await t.get(`/api/v1/channels/${channelId}/programmes?${name}=${value}`, key);
        expect(res.statusCode, `${name}=${value}`).toBe(200);
      }
    }
    expect(Object.keys(PARAMETER_DOCS).sort()).toEqual(['all', 'channelId', 'days']);
  });

  it('marks every id that is a UUID as one', () => {
    const { schemas } = doc.components;
    const property = (name: string, field: string) =>
      (schemas[name]?.properties as Record<string, { format?: string }>)[field]?.format;
    expect(property('Channel', 'id')).toBe('uuid');
    for (const name of ['ChannelSummary', 'GuideChannel', 'NowNextChannel', 'RichProgramme']) {
      expect(property(name, 'channelId'), name).toBe('uuid');
    }
    expect(property('Programme', 'sourceFileId')).toBe('uuid');
    expect(property('Schedule', 'channelId')).toBe('uuid');
    for (const name of ['Guide', 'NowNext']) {
      const missing = (schemas[name]?.properties as Record<string, { items: unknown }>).missing;
      expect(missing?.items, name).toEqual({ type: 'string', format: 'uuid' });
    }
    // Programme ids are digits, not UUIDs.
    expect(property('Programme', 'id')).toBeUndefined();
    for (const path of v1Paths().filter((p) => p.includes('{channelId}'))) {
      const param = (operation(path).parameters ?? []).find((p) => p.name === 'channelId');
      expect((param as unknown as { schema: unknown }).schema, path).toEqual({
        type: 'string',
        format: 'uuid',
      });
    }
  });

  it('states the licence of the package', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
    expect(manifest.license).toBe('MIT');
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
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
      listChanges: ChangesResponse,
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
          const shown = errorExampleOf(V1_OPERATIONS[path] as OperationDoc, code as ApiErrorCode);
          expect(shown.status, code).toBe(Number(status));
          expect(example.value).toEqual({ error: shown.message, code });
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
        'CURSOR_EXPIRED',
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
    const changes = path === '/api/v1/changes';
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
        if (grid || changes) return send(`${url}?country=U$`, key);
        return send(path.includes('search') ? `${url}?q=a&country=U$` : url, key);
      case 'INVALID_DAYS':
        return send(`${url}?days=366`, key);
      case 'INVALID_PARAMETERS':
        if (changes) return send(`${url}?since=first`, key);
        // Both selections at once: exactly one is allowed.
        if (grid) return send(`${url}?country=UK&channels=${channelId}`, key);
        return send(path.includes('search') ? `${url}?q=a&q=b` : `${url}?days=1&all=1`, key);
      case 'BAD_REQUEST':
        // No path parameter to break: the path itself, which is decoded before any route.
        if (grid || changes || path === '/api/v1/programmes/search')
          return send(`${url}%E0%A4%A?country=UK`, key);
        return send(url.replace(path.includes('country') ? 'UK' : channelId, '%E0%A4%A'), key);
      case 'CHANNEL_NOT_FOUND':
      case 'PROGRAMME_NOT_FOUND':
        return send(url, key);
      case 'CURSOR_EXPIRED':
        // Past the newest record: a cursor of another log.
        return send(`${url}?since=999999999`, key);
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
          // The example the reference shows this route is an answer of its own; a pruned
          // cursor's message names its records.
          const shown = errorExampleOf(V1_OPERATIONS[path] as OperationDoc, code as ApiErrorCode);
          if (code !== 'CURSOR_EXPIRED') {
            expect(res.body.error).toBe(shown.message);
          }
          checked += 1;
        }
      }
    }
    // 5 guard codes on each of 9 routes, and the routes' own 2 + 2 + 4 + 3 + 3 + 3 + 3 + 4.
    expect(checked).toBe(69);
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
      ['/api/v1/changes?since=0', ChangesResponse],
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

describe('types generated from /openapi.json by openapi-typescript', () => {
  it("type a schedule's programmes and an error's code, not as unknown", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-openapi-types-'));
    try {
      const served = (await t.get('/openapi.json')).json() as Record<string, unknown>;
      writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(served as never)));
      // What a client would write against the generated types.
      const check = join(dir, 'check.ts');
      writeFileSync(
        check,
        [
          "import type { components, paths } from './api.js';",
          "export type Schedule = paths['/api/v1/channels/{channelId}/programmes']['get']['responses'][200]['content']['application/json'];",
          "export type ScheduleProgramme = Schedule['programmes'][number];",
          "export type ErrorCode = components['schemas']['Error']['code'];",
          "export type RefusalCode = paths['/api/v1/countries']['get']['responses'][401]['content']['application/json']['code'];",
          'export const title: string = ({} as ScheduleProgramme).title;',
          "export const code: ErrorCode = 'RATE_LIMITED';",
          '',
        ].join('\n'),
      );
      const program = ts.createProgram([check], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2022.d.ts'],
        types: [],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);

      const checker = program.getTypeChecker();
      const source = program.getSourceFile(check);
      const exported = checker.getExportsOfModule(
        checker.getSymbolAtLocation(source as ts.SourceFile) as ts.Symbol,
      );
      const typeOf = (name: string) =>
        checker.getDeclaredTypeOfSymbol(exported.find((s) => s.name === name) as ts.Symbol);
      const opaque = ts.TypeFlags.Unknown | ts.TypeFlags.Any;

      // A programme of a schedule is an object with the schedule entry's fields, typed.
      const programme = typeOf('ScheduleProgramme');
      expect(programme.flags & opaque).toBe(0);
      expect(
        checker
          .getPropertiesOfType(programme)
          .map((p) => p.name)
          .sort(),
      ).toEqual(Object.keys(ProgrammeEntry.properties).sort());
      const field = (name: string) =>
        checker.typeToString(
          checker.getTypeOfSymbol(checker.getPropertyOfType(programme, name) as ts.Symbol),
        );
      expect([field('title'), field('needsReview'), field('start')]).toEqual([
        'string',
        'boolean',
        'string',
      ]);
      expect(
        checker.isArrayType(
          checker.getTypeOfSymbol(
            checker.getPropertyOfType(typeOf('Schedule'), 'programmes') as ts.Symbol,
          ),
        ),
      ).toBe(true);

      // An error's code is the union of the catalogue's codes, in a refusal as in the schema.
      for (const name of ['ErrorCode', 'RefusalCode']) {
        const codes = typeOf(name);
        expect(codes.isUnion(), name).toBe(true);
        const literals = (codes as ts.UnionType).types.map((member) =>
          member.isStringLiteral() ? member.value : checker.typeToString(member),
        );
        expect(literals.sort(), name).toEqual(Object.keys(ERROR_STATUS).sort());
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
