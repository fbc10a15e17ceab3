import type { FastifyInstance, FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseCountryCode } from '../../domain/country.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import {
  ChannelsResponse,
  CountriesResponse,
  CountryParams,
  ErrorBody,
  keyedErrorResponses,
} from '../schemas.js';
import type { CachedAnswers } from '../answers/cached-answers.js';
import { refuseOtherMethods } from '../method-guard.js';

/** GET /api/v1/countries and GET /api/v1/countries/:country/channels. */
export function registerCountriesRoutes(
  app: FastifyInstance,
  catalogue: CatalogueReader,
  answers: CachedAnswers,
): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();
  // The declared response schemas serialise the cached bodies, as Fastify would.
  const countriesJson = fastJson(CountriesResponse as object);
  const channelsJson = fastJson(ChannelsResponse as object);

  v1.get(
    '/countries',
    {
      schema: {
        summary: 'List countries with their channel counts',
        response: { 200: CountriesResponse, ...keyedErrorResponses },
      },
    },
    async (request, reply) =>
      answers.send(
        request,
        reply as unknown as FastifyReply,
        answers.body('countries', async () =>
          countriesJson({ countries: await catalogue.listCountries() }),
        ),
      ),
  );
  refuseOtherMethods(app, '/countries');

  v1.get(
    '/countries/:country/channels',
    {
      schema: {
        summary: 'List the channels of a country',
        params: CountryParams,
        response: { 200: ChannelsResponse, 400: ErrorBody, ...keyedErrorResponses },
      },
    },
    async (request, reply) => {
      const country = parseCountryCode(request.params.country);
      return answers.send(
        request,
        reply as unknown as FastifyReply,
        answers.body(`channels:${country}`, async () =>
          channelsJson({ country, channels: await catalogue.listChannels(country) }),
        ),
      );
    },
  );
  refuseOtherMethods(app, '/countries/:country/channels');
}
