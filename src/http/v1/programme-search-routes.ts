import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseProgrammeSearchQuery } from '../../domain/programme-search.js';
import type { ProgrammeSearchAnswers } from '../answers/programme-search-answers.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import {
  ErrorBody,
  keyedErrorResponses,
  ProgrammeSearchQuery,
  ProgrammeSearchResponse,
} from '../schemas.js';
import { refuseOtherMethods } from '../method-guard.js';

/**
 * GET /api/v1/programmes/search: programmes by their words across channels and countries, in
 * start order, paged by cursor (the rules: domain/programme-search.ts).
 */
export function registerProgrammeSearchRoutes(
  app: FastifyInstance,
  search: ProgrammeSearchAnswers,
  answers: CachedAnswers,
  now: () => number,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  v1.get(
    '/programmes/search',
    {
      schema: {
        summary: 'Search programmes by their words across channels and countries',
        querystring: ProgrammeSearchQuery,
        response: { 200: ProgrammeSearchResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const query = parseProgrammeSearchQuery(request.query);
      const answer = search.v1(answers, query, now());
      return answers.send(request, reply as unknown as FastifyReply, answer);
    },
  );
  refuseOtherMethods(app, '/programmes/search');
}
