import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseCountryCode } from '../../domain/country.js';
import type { CatalogueReader } from '../../storage/types.js';
import {
  ChannelsResponse,
  CountriesResponse,
  CountryParams,
  ErrorBody,
  keyedErrorResponses,
} from '../schemas.js';
import { refuseOtherMethods } from './method-guard.js';

/** GET /api/v1/countries and GET /api/v1/countries/:country/channels. */
export function registerCountriesRoutes(app: FastifyInstance, catalogue: CatalogueReader): void {
  const v1 = app.withTypeProvider<TypeBoxTypeProvider>();

  v1.get(
    '/countries',
    {
      schema: {
        summary: 'List countries with their channel counts',
        response: { 200: CountriesResponse, ...keyedErrorResponses },
      },
    },
    async () => ({ countries: await catalogue.listCountries() }),
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
    async (request) => {
      const country = parseCountryCode(request.params.country);
      return { country, channels: await catalogue.listChannels(country) };
    },
  );
  refuseOtherMethods(app, '/countries/:country/channels');
}
