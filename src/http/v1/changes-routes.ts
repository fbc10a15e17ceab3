import type { FastifyInstance, FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  changeEntry,
  changesPage,
  changesStart,
  parseChangesQuery,
  type ChangesQuery as ParsedChangesQuery,
} from '../../domain/changes.js';
import type { ChangeLog } from '../../storage/change-log.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import { ChangesQuery, ChangesResponse, ErrorBody, keyedErrorResponses } from '../schemas.js';
import { refuseOtherMethods } from '../method-guard.js';

/** The body of a changes query: read in one snapshot of the log, 410 when it cannot follow. */
export async function changesBody(changes: ChangeLog, query: ParsedChangesQuery) {
  const { limit, country, channels } = query;
  // Without `since` the page starts at the newest record: nothing after it to read.
  const after = query.since ?? Number.MAX_SAFE_INTEGER;
  const read = await changes.read({ after, limit: limit + 1, country, channels });
  changesStart(query, read.bounds);
  const page = changesPage(read.records, limit, read.bounds.newest);
  return { changes: page.changes.map(changeEntry), next: page.next, hasMore: page.hasMore };
}

/**
 * GET /api/v1/changes: what the ingests changed, record by record, for clients that keep a
 * copy (the rules: domain/changes.ts). An answer is kept per catalogue version: every write the
 * log records moves it.
 */
export function registerChangesRoutes(
  app: FastifyInstance,
  changes: ChangeLog,
  answers: CachedAnswers,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  const json = fastJson(ChangesResponse as object);
  v1.get(
    '/changes',
    {
      schema: {
        summary: 'What the ingests changed since a point: programmes and channels, in order',
        querystring: ChangesQuery,
        response: { 200: ChangesResponse, 400: ErrorBody, 410: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const query = parseChangesQuery(request.query);
      const key = `changes:${JSON.stringify(query)}`;
      return answers.send(
        request,
        reply as unknown as FastifyReply,
        answers.body(key, async () => json(await changesBody(changes, query))),
      );
    },
  );
  refuseOtherMethods(app, '/changes');
}
