import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { OPENAPI_PATH } from '../http/openapi/openapi-document.js';
import { PLAYGROUND_API_PREFIX } from '../http/playground/playground-routes.js';
import type { SiteAddress } from '../http/site-address.js';
import { pageHelmetOptions } from './page-security.js';
import { docsPage } from './views/docs-page.js';
import { playgroundPage } from './views/playground-page.js';

/** Where the reference renderer's files are served. */
export const RENDERER_ASSETS = '/docs/assets';
/** The only files of swagger-ui-dist the page loads. */
const RENDERER_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css']);

/** What the developer pages need; chosen once at start-up. */
export interface DeveloperPagesDeps {
  site: SiteAddress;
  /** Playground requests per client address per window. */
  playgroundLimit: number;
  playgroundWindowMs: number;
}

/**
 * The public pages for developers: `/docs` (getting started and the API reference rendered
 * from /openapi.json) and `/playground` (preview data, no key). Same headers and CSP as the
 * account pages; Swagger UI is served from the installed package, never from a CDN.
 */
export async function registerDeveloperPages(
  app: FastifyInstance,
  deps: DeveloperPagesDeps,
): Promise<void> {
  const { site } = deps;
  const rendererRoot = dirname(
    createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
  );

  await app.register(async (pages) => {
    await pages.register(fastifyHelmet, pageHelmetOptions(site.url.startsWith('https:')));
    await pages.register(fastifyStatic, {
      root: rendererRoot,
      prefix: `${RENDERER_ASSETS}/`,
      index: false,
      maxAge: '1h',
      decorateReply: false,
      allowedPath: (path) => RENDERER_FILES.has(path.replace(/^\/+/, '')),
    });
    pages.addHook('onSend', async (_request, reply, payload) => {
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        reply.header('Cache-Control', 'no-cache');
      }
      return payload;
    });

    pages.get('/docs', async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(
        docsPage({
          baseUrl: site.url,
          openApiPath: OPENAPI_PATH,
          rendererAssets: RENDERER_ASSETS,
        }).value,
      ),
    );

    pages.get('/playground', async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(
        playgroundPage({
          previewApi: PLAYGROUND_API_PREFIX,
          customerApi: `${site.url}/api/v1`,
          limitPerMinute: Math.round((deps.playgroundLimit * 60_000) / deps.playgroundWindowMs),
        }).value,
      ),
    );
  });
}
