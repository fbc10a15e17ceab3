import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliSandbox,
  startServe,
  type CliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { freshPostgresDatabase } from '../helpers/engines.js';
import { freePort, SHARED_REDIS_URL } from '../helpers/redis-process.js';
import { outboxFiles } from '../helpers/outbox.js';

/**
 * Two `onair serve` processes, each with its own port and PUBLIC_URL (a "second
 * deployment"), over one PostgreSQL database and one Redis.
 */
let cli: CliSandbox;
let database: { url: string; drop(): Promise<void> };
let a: ServeProcess;
let b: ServeProcess;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  cli = createCliSandbox();
  database = await freshPostgresDatabase();
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_KEY_PREFIX: `onair-test:${randomUUID()}:`,
  };
  const start = async (name: string) => {
    const port = await freePort();
    return startServe(cli, [], {
      ...env,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OUTBOX_DIR: join(cli.dir, `outbox-${name}`),
    });
  };
  a = await start('a');
  b = await start('b');
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
  cli?.dispose();
});

/** A browser's sign-in on one instance, through its pages; returns the session cookie. */
async function signInOn(instance: ServeProcess, outbox: string, email: string): Promise<string> {
  const form = (body: Record<string, string>, cookie = '') => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: instance.url,
      'sec-fetch-site': 'same-origin',
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(body).toString(),
  });
  expect((await fetch(`${instance.url}/signin`, form({ email }))).status).toBe(303);
  await expect.poll(() => outboxFiles(outbox).length).toBe(1);
  const mail = await simpleParser(readFileSync(join(outbox, outboxFiles(outbox)[0] ?? '')));
  const token = /\/signin\/confirm\?token=([\w-]{43})/.exec(mail.text ?? '')?.[1] ?? '';
  const confirmed = await fetch(`${instance.url}/signin/confirm`, form({ token }));
  expect(confirmed.status).toBe(303);
  return (confirmed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

const api = (instance: ServeProcess, key: string, path = '/api/v1/countries') =>
  fetch(`${instance.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('two instances over one PostgreSQL and one Redis', () => {
  it('share keys, revocations, the catalogue and one rate-limit budget per account', async () => {
    const cookie = await signInOn(a, join(cli.dir, 'outbox-a'), 'fleet@example.com');
    const created = await fetch(`${a.url}/account/keys`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: a.url,
        cookie,
      },
      body: 'name=fleet',
    });
    // Followed to the page that shows the key once, on the instance that made it.
    expect(created.status).toBe(200);
    const key = /<code id="new-key"[^>]*>(onair_\w+)<\/code>/.exec(await created.text())?.[1] ?? '';

    // A key created through A works on B at once.
    expect((await api(b, key)).status).toBe(200);

    // Many concurrent requests across both: exactly 3 admitted per window, window after window.
    for (let round = 0; round < 4; round++) {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 50));
      const statuses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => api(i % 2 ? a : b, key).then((r) => r.status)),
      );
      expect(
        statuses.filter((s) => s === 200),
        `round ${round}: ${statuses}`,
      ).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(13);
    }

    // An ingest through the CLI is served by both.
    const guide = join(cli.dir, 'guide.xml');
    writeFileSync(
      guide,
      `<tv><channel id="one.ie"><display-name>One</display-name></channel>
<programme start="20260822190000 +0100" stop="20260822200000 +0100" channel="one.ie"><title>News</title></programme></tv>`,
    );
    const ingest = await cli.run(['ingest', guide, '--country', 'IE'], env);
    expect(ingest.code, ingest.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 50));
    for (const instance of [a, b]) {
      expect(await (await api(instance, key)).json()).toEqual({
        countries: [{ country: 'IE', channelCount: 1 }],
      });
    }

    // A key revoked through A's account page is refused by B on the next request.
    const keysPage = await (await fetch(`${a.url}/account`, { headers: { cookie } })).text();
    const keyId = /\/account\/keys\/([\w-]+)\/revoke/.exec(keysPage)?.[1];
    const revoked = await fetch(`${a.url}/account/keys/${keyId}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: a.url, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(revoked.status).toBe(303);
    const refused = await api(b, key);
    expect(refused.status).toBe(401);
  });

  it('measures how soon a key revoked through one instance is refused by the other', async () => {
    // Instances cache key owners while the auth version holds, and learn of changes through
    // PostgreSQL notifications (1 s re-read as a backstop): the bound is how long B may still
    // admit a key after A has answered its revocation.
    const cookie = await signInOn(b, join(cli.dir, 'outbox-b'), 'bound@example.com');
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: b.url, cookie };
    const delays: number[] = [];
    const admittedAfter: number[] = [];
    for (let round = 0; round < 8; round++) {
      const created = await fetch(`${b.url}/account/keys`, {
        method: 'POST',
        headers: form,
        body: `name=bound-${round}`,
      });
      expect(created.status).toBe(200);
      const html = await created.text();
      const key = /<code id="new-key"[^>]*>(onair_\w+)<\/code>/.exec(html)?.[1] ?? '';
      // A knows the key (and keeps it in its cache) before the revocation.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
      expect((await api(a, key)).status).toBe(200);
      const page = await (await fetch(`${b.url}/account`, { headers: { cookie } })).text();
      const ids = [...page.matchAll(/\/account\/keys\/([\w-]+)\/revoke/g)].map((m) => m[1]);
      const keyId = ids.at(-1);
      const revoked = await fetch(`${b.url}/account/keys/${keyId}/revoke`, {
        method: 'POST',
        redirect: 'manual',
        headers: form,
        body: '',
      });
      expect(revoked.status).toBe(303);
      const answeredAt = performance.now();
      let admitted = 0;
      for (;;) {
        const status = (await api(a, key)).status;
        if (status === 401) break;
        // Still recognised: answered, or refused by the account's budget when A sees the
        // revocation late and the loop outruns it (a loaded CI machine, 2026-12-02).
        expect([200, 429]).toContain(status);
        admitted++;
        expect(performance.now() - answeredAt).toBeLessThan(1_500);
      }
      delays.push(performance.now() - answeredAt);
      admittedAfter.push(admitted);
    }
    console.log(
      `revocation through B refused by A: requests admitted after it ${JSON.stringify(admittedAfter)}, ` +
        `time to the first 401 max ${Math.max(...delays).toFixed(1)} ms`,
    );
    // Within the 1 s backstop, always; by the next request, as a rule.
    expect(Math.max(...delays)).toBeLessThan(1_500);
  });
});
