import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const PUBLIC_URL = 'https://onair.example.test';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL });
});
afterAll(async () => {
  await t?.close();
});

/** Every URL a page loads or links to: scripts, styles, images, links and forms. */
function referencedUrls(page: string): string[] {
  return [...page.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map((m) => m[1] ?? '');
}

describe('/docs', () => {
  it('shows getting started with copyable curl lines for this deployment', async () => {
    const res = await t.get('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const line of [
      `curl -H "Authorization: Bearer YOUR_KEY" ${PUBLIC_URL}/api/v1/countries`,
      `curl -H "X-API-Key: YOUR_KEY" "${PUBLIC_URL}/api/v1/channels/search?q=news"`,
      `curl -si -H "Authorization: Bearer YOUR_KEY" ${PUBLIC_URL}/api/v1/countries`,
      `${PUBLIC_URL}/feeds/YOUR_FEED_TOKEN/guide.xml`,
    ]) {
      expect(res.body).toContain(line.replace(/"/g, '&quot;'));
    }
    const copyTargets = [...res.body.matchAll(/data-copy-target="([^"]+)"/g)].map((m) => m[1]);
    expect(copyTargets.length).toBe(6);
    for (const target of copyTargets) expect(res.body).toContain(`id="${target}"`);
    for (const topic of [
      'Get a key',
      'First call',
      'Rate limit',
      'Errors',
      'Use with Plex / Jellyfin / Kodi / Tvheadend',
    ]) {
      expect(res.body).toContain(topic);
    }
    expect(res.body).toContain('data-openapi-url="/openapi.json"');
  });

  it('runs under the strict CSP, with every script and style from this site', async () => {
    const res = await t.get('/docs');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    for (const url of referencedUrls(res.body)) {
      expect(url.startsWith('/') || url.startsWith(`${PUBLIC_URL}/`), url).toBe(true);
    }
    for (const asset of [
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/assets/docs.js',
    ]) {
      expect(res.body).toContain(asset);
      const file = await t.get(asset);
      expect(file.statusCode, asset).toBe(200);
      expect(file.headers['content-type']).toMatch(asset.endsWith('.js') ? /javascript/ : /css/);
    }
  });

  it('serves no other file of the renderer package', async () => {
    for (const path of [
      'index.html',
      'package.json',
      'swagger-initializer.js',
      '../package.json',
    ]) {
      expect((await t.get(`/docs/assets/${path}`)).statusCode, path).toBe(404);
    }
  });
});

describe('/playground', () => {
  it('is a page over the preview API, saying it is preview data, under the same CSP', async () => {
    const res = await t.get('/playground');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Preview data.');
    expect(res.body).toContain('data-preview-api="/playground/api"');
    expect(res.body).toContain(`data-customer-api="${PUBLIC_URL}/api/v1"`);
    expect(res.body).toContain('60 requests a minute');
    expect(String(res.headers['content-security-policy'])).toContain("connect-src 'self'");
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const url of referencedUrls(res.body)) {
      expect(url.startsWith('/') || url.startsWith(`${PUBLIC_URL}/`), url).toBe(true);
    }
    expect((await t.get('/assets/playground.js')).statusCode).toBe(200);
  });

  it('is linked from every page header', async () => {
    for (const path of ['/', '/signin', '/docs', '/playground']) {
      const body = (await t.get(path)).body;
      expect(body, path).toContain('href="/docs"');
      expect(body, path).toContain('href="/playground"');
    }
  });
});
