import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { PROJECT_ROOT } from '../../config.js';
import { ErrorBody } from '../schemas.js';
import type { SiteAddress } from '../site-address.js';
import { withNamedSchemas } from './named-schemas.js';
import { WEBHOOK_PAYLOAD_SCHEMA, webhooksObject } from './webhook-docs.js';
import {
  API_ERRORS,
  errorExampleOf,
  apiIntroduction,
  FEED_ERRORS,
  FEED_OPERATIONS,
  type FeedOperationDoc,
  GUARD_ERRORS,
  V1_OPERATIONS,
  type ApiErrorCode,
  type OperationDoc,
  PARAMETER_DOCS,
  type RouteErrorStatus,
} from './operation-docs.js';

/** Where the document is served: public, outside the keyed `/api/v1` space. */
export const OPENAPI_PATH = '/openapi.json';

const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Invalid parameters or request',
  401: 'Missing or invalid API key',
  403: 'No access now',
  404: 'Not found',
  410: 'Gone: the records after `since` are no longer kept',
  429: 'Rate limit exceeded',
  500: 'Server error',
  503: 'Storage unreachable for a moment',
};

const RETRY_AFTER = {
  'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying' },
};

const SUCCESS_HEADERS = {
  ETag: { type: 'string', description: 'Send back in `If-None-Match` to get 304 while unchanged' },
  'Cache-Control': {
    type: 'string',
    description:
      '`private, no-cache`: keep the answer, but ask again with its `ETag` each time (a 304 costs no body)',
  },
  RateLimit: {
    type: 'string',
    description: 'Budget left in this window: `limit=3, remaining=2, reset=1`',
  },
  'RateLimit-Policy': { type: 'string', description: 'Requests per window: `3;w=1`' },
};

/** The error body with its `$id` left out: every copy is inlined into its response. */
function errorShape(): Record<string, unknown> {
  const shape = { ...(ErrorBody as unknown as Record<string, unknown>) };
  delete shape.$id;
  return shape;
}

/** One error response: which codes it carries, what they mean, a real example of each. */
function errorResponse(
  status: number,
  codes: readonly ApiErrorCode[],
  doc: OperationDoc,
): Record<string, unknown> {
  const meanings = codes.map((code) => `\`${code}\`: ${API_ERRORS[code].meaning}`).join(' ');
  return {
    ...errorShape(),
    'x-response-description': `${STATUS_TITLES[status] ?? 'Error'}. ${meanings}`,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    'x-examples': Object.fromEntries(
      codes.map((code) => {
        const example = errorExampleOf(doc, code);
        return [code, { summary: code, value: { error: example.message, code: example.code } }];
      }),
    ),
  };
}

/**
 * A route's parameters (`params` or `querystring`) as the reference shows them: the route's own
 * schema, with what PARAMETER_DOCS says of a parameter added to its property.
 */
function documentedParameters(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, TSchema> } | undefined;
  if (object?.properties === undefined) return schema;
  const properties = Object.fromEntries(
    Object.entries(object.properties).map(([name, property]) => [
      name,
      { ...property, ...PARAMETER_DOCS[name] },
    ]),
  );
  return { ...object, properties };
}

/**
 * A v1 route's schema as the reference shows it: the route's own parameters and response
 * schemas (the ones that validate and serialise), with the words, examples, headers and every
 * error status and code added.
 */
function documentedSchema(schema: FastifySchema, doc: OperationDoc): FastifySchema {
  const declared = (schema.response ?? {}) as Record<string, TSchema>;
  const response: Record<string, unknown> = {};
  for (const [status, responseSchema] of Object.entries(declared)) {
    const code = Number(status);
    if (code !== 200) continue;
    response[status] = {
      ...responseSchema,
      'x-response-description': 'OK',
      headers: SUCCESS_HEADERS,
      'x-examples': { example: { summary: 'An answer', value: doc.example } },
    };
  }
  response['304'] = {
    type: 'null',
    description: 'Not modified: the `If-None-Match` tag still names the current answer',
  };
  const statuses = new Set([
    ...Object.keys(declared).map(Number),
    ...Object.keys(doc.routeErrors).map(Number),
  ]);
  for (const status of [...statuses].filter((s) => s >= 400).sort()) {
    const codes = [
      ...(doc.routeErrors[status as RouteErrorStatus] ?? []),
      ...(GUARD_ERRORS[status] ?? []),
    ];
    if (codes.length === 0)
      throw new Error(`${doc.operationId}: no codes documented for ${status}`);
    response[String(status)] = errorResponse(status, codes, doc);
  }
  return {
    ...schema,
    ...(schema.params === undefined ? {} : { params: documentedParameters(schema.params) }),
    ...(schema.querystring === undefined
      ? {}
      : { querystring: documentedParameters(schema.querystring) }),
    operationId: doc.operationId,
    tags: [doc.tag],
    description: doc.description,
    headers: Type.Object({
      'If-None-Match': Type.Optional(
        Type.String({ description: 'The `ETag` of an earlier answer: 304 while it is current' }),
      ),
    }),
    response,
  } as FastifySchema;
}

/** A feed route's schema as the reference shows it: keyless, XMLTV or gzip, its own errors. */
function documentedFeedSchema(schema: FastifySchema, doc: FeedOperationDoc): FastifySchema {
  const response: Record<string, unknown> = {
    200: {
      description:
        doc.mediaType === 'application/xml'
          ? 'An XMLTV document'
          : 'A gzip file of an XMLTV document',
      headers: {
        ETag: SUCCESS_HEADERS.ETag,
        'Last-Modified': { type: 'string', description: 'When this document was made' },
      },
      content: { [doc.mediaType]: { schema: { type: 'string' } } },
    },
    304: {
      type: 'null',
      description: 'Not modified: the `If-None-Match` tag still names the current document',
    },
  };
  for (const [status, examples] of Object.entries(FEED_ERRORS)) {
    response[status] = {
      ...errorShape(),
      'x-response-description': `${STATUS_TITLES[Number(status)] ?? 'Error'}. ${examples.map((e) => `\`${e.code}\`: ${e.message}.`).join(' ')}`,
      ...(status === '429' || status === '503' ? { headers: RETRY_AFTER } : {}),
      'x-examples': Object.fromEntries(
        examples.map((e) => [
          e.code,
          { summary: e.code, value: { error: e.message, code: e.code } },
        ]),
      ),
    };
  }
  return {
    ...schema,
    operationId: doc.operationId,
    tags: ['Feeds'],
    description: doc.description,
    security: [],
    headers: Type.Object({
      'If-None-Match': Type.Optional(
        Type.String({ description: 'The `ETag` of an earlier fetch: 304 while it is current' }),
      ),
    }),
    response,
  } as FastifySchema;
}

/** The version and the licence (an SPDX identifier) the package declares. */
function packageInfo(): { version: string; license: string } {
  const manifest = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version?: string;
    license?: string;
  };
  return { version: manifest.version ?? '0.0.0', license: manifest.license ?? 'UNLICENSED' };
}

/**
 * Collects the routes as they are registered (so call this before registering them) and
 * serves the OpenAPI 3.1 document of the v1 API at `/openapi.json`, generated by
 * @fastify/swagger from the same TypeBox schemas that validate requests and serialise
 * responses. The server address is this deployment's PUBLIC_URL, read per request because it
 * is only known once the server listens when PUBLIC_URL is not set.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  deps: { site: SiteAddress },
): Promise<void> {
  const { version, license } = packageInfo();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Onair API',
        version,
        description: apiIntroduction(),
        license: { name: license, identifier: license },
      },
      tags: [
        { name: 'Catalogue', description: 'Countries and channels' },
        {
          name: 'Schedules',
          description: 'Programmes: a channel’s schedule, one programme, the guide grid, now/next',
        },
        {
          name: 'Changes',
          description: 'What each ingest changed, in order, for apps that keep a copy',
        },
        {
          name: 'Webhooks',
          description:
            'What Onair POSTs to your webhook URL after each ingest: change records, signed',
        },
        {
          name: 'Feeds',
          description:
            'XMLTV guides of a lineup, for media servers (Plex, Jellyfin, Kodi, Tvheadend)',
        },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The API key as `Authorization: Bearer <key>`',
          },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'The same API key as `X-API-Key: <key>`',
          },
        },
      },
      // Either header: two alternatives, not both at once.
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    },
    transform: ({ schema, url, route }) => {
      const methods = [(route as unknown as RouteOptions).method].flat();
      const path = url.replace(/:(\w+)/g, '{$1}');
      const feedDoc = FEED_OPERATIONS[path];
      if (feedDoc !== undefined && methods.includes('GET')) {
        return { schema: documentedFeedSchema(schema, feedDoc), url };
      }
      const doc = V1_OPERATIONS[path];
      if (url.startsWith('/api/v1/') && methods.includes('GET') && doc === undefined) {
        throw new Error(`GET ${url} has no entry in V1_OPERATIONS`);
      }
      if (doc === undefined || !methods.includes('GET')) {
        return { schema: { ...schema, hide: true }, url };
      }
      return { schema: documentedSchema(schema, doc), url };
    },
  });

  let served: { url: string; json: string } | null = null;
  app.get(OPENAPI_PATH, async (_request, reply) => {
    if (served === null || served.url !== deps.site.url) {
      const { openapi, info, ...rest } = app.swagger() as Record<string, unknown>;
      const servers = [{ url: deps.site.url, description: 'This deployment' }];
      const externalDocs = { description: 'Getting started', url: `${deps.site.url}/docs` };
      const named = withNamedSchemas({ openapi, info, servers, externalDocs, ...rest });
      const components = named.components as { schemas: Record<string, unknown> };
      // The request Onair sends (not a route of its own): OpenAPI 3.1 `webhooks`.
      const document = {
        ...named,
        webhooks: webhooksObject(),
        components: {
          ...components,
          schemas: { ...components.schemas, WebhookPayload: WEBHOOK_PAYLOAD_SCHEMA },
        },
      };
      served = { url: deps.site.url, json: JSON.stringify(document) };
    }
    return reply
      .type('application/json; charset=utf-8')
      .header('Cache-Control', 'public, max-age=300')
      .header('Access-Control-Allow-Origin', '*')
      .send(served.json);
  });
}
