import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openCliSandbox,
  startServe,
  type EngineCliSandbox,
  type ServeProcess,
} from '../helpers/cli-runner.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fixturePath } from '../ingest/ingest-helpers.js';

/**
 * A customer's whole life on a real `bin/onair serve` logging at its most verbose level
 * (trace), mail through SMTP: sign in, create a key, use it well and badly (in the query, in
 * the path, as search text), revoke it, sign out. Afterwards no sign-in token, session id or
 * key appears in any log line, error body, page shown after creation, or CLI output.
 */

// On the vitest project's engine: a SQLite file, or a fresh PostgreSQL database.
let cli: EngineCliSandbox;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let server: ServeProcess;
let log = '';

beforeAll(async () => {
  cli = await openCliSandbox();
  sink = await startSmtpSink();
  receiver = await startWebhookReceiver();
  // A webhook's test request goes to a receiver on this machine.
  cli.env.WEBHOOK_ALLOW_HTTP = '1';
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  server = await startServe(cli, [], { LOG_LEVEL: 'trace', SMTP_URL: sink.url });
  server.child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  server.child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
}, 60_000);

afterAll(async () => {
  if (server?.child.exitCode === null) await server.stop();
  await sink?.close();
  await receiver?.close();
  await cli?.dispose();
});

describe('secrets after creation', () => {
  it('appear in no log line, error body, later page or CLI output', async () => {
    const base = server.url;
    /** Everything shown to anyone after each secret was handed over. */
    const shown: string[] = [];
    let cookie = '';
    const request = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${base}${path}`, {
        redirect: 'manual',
        ...init,
        headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) },
      });
      const body = await res.text();
      return { status: res.status, body, headers: res.headers };
    };
    const form = (path: string, fields: Record<string, string>) =>
      request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
        body: new URLSearchParams(fields).toString(),
      });

    // Sign in: the token travels only in the mail.
    expect((await form('/signin', { email: 'ann@example.com' })).status).toBe(303);
    const mail = await sink.waitForMail('ann@example.com', 10_000);
    const token = /token=([\w-]{43})/.exec(mail.text ?? '')?.[1] ?? '';
    expect(token).toHaveLength(43);
    // The link's own page carries the token in its form, for the button: that is its use.
    const confirmPage = (await request(`/signin/confirm?token=${token}`)).body;
    expect(confirmPage.split(token)).toHaveLength(2);
    expect(confirmPage).toContain(`name="token" value="${token}"`);
    const confirmed = await form('/signin/confirm', { token });
    expect(confirmed.status).toBe(303);
    cookie = (confirmed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const sessionId = cookie.split('=')[1] ?? '';
    expect(sessionId).toHaveLength(43);
    // A used link, opened again from another browser: refused, without echoing it.
    const signedIn = cookie;
    cookie = '';
    shown.push((await request(`/signin/confirm?token=${token}`)).body);
    shown.push((await form('/signin/confirm', { token })).body);
    cookie = signedIn;

    // Create a key: the one page that shows it, once, after the POST's redirect.
    const posted = await form('/account/keys', { name: 'production' });
    expect(posted.status).toBe(303);
    const createdAt = posted.headers.get('location') ?? '';
    const created = await request(createdAt);
    expect(created.status).toBe(200);
    const key =
      /<code id="new-key"[^>]*>(onair_[0-9A-Za-z]+)<\/code>/.exec(created.body)?.[1] ?? '';
    expect(key).toMatch(/^onair_/);
    shown.push(posted.body, (await request(createdAt)).body, (await request('/account')).body);

    // A webhook: its secret is shown once, after the POST's redirect; a test request is signed
    // with it (and logged, at trace level).
    const hook = await form('/account/webhooks', {
      url: receiver.url,
      filter: 'country',
      country: 'IE',
    });
    expect(hook.status).toBe(303);
    const secretAt = hook.headers.get('location') ?? '';
    const secretPage = await request(secretAt);
    const webhookSecret = /<code id="webhook-secret" data-secret>([^<]+)<\/code>/.exec(
      secretPage.body,
    )?.[1];
    expect(webhookSecret).toMatch(/^whsec_/);
    const hookId = /webhooks\/([0-9a-f-]{36})\//.exec(secretAt)?.[1] ?? '';
    expect((await form(`/account/webhooks/${hookId}/test`, {})).status).toBe(303);
    expect(receiver.received).toHaveLength(1);
    shown.push(
      hook.body,
      (await request(secretAt)).body,
      (await request(`/account/webhooks/${hookId}`)).body,
    );
    for (const args of [
      ['webhooks', 'list'],
      ['webhooks', 'show', hookId],
    ]) {
      for (const json of [[], ['--json']]) {
        const result = await cli.run([...args, ...json]);
        expect(result.code).toBe(0);
        shown.push(result.stdout, result.stderr);
      }
    }

    // Use it, well and badly (more than 3 a second: the operator raises the limit).
    await cli.json(['accounts', 'set', '--email', 'ann@example.com', '--rate-limit', '1000']);
    const api = (path: string, headers: Record<string, string>) => request(path, { headers });
    const presentations: Record<string, string>[] = [
      { authorization: `Bearer ${key}` },
      { 'x-api-key': key },
    ];
    for (const headers of presentations) {
      expect((await api('/api/v1/countries', headers)).status).toBe(200);
      for (const path of [
        `/api/v1/countries?api_key=${key}`,
        `/api/v1/channels/search?q=${key}`,
        `/api/v1/channels/${key}/programmes`,
        `/api/v1/countries/${key}/channels`,
        `/api/v1/${key}`,
        `/api/v1/channels/x/programmes?days=${key}`,
        `/nowhere/${key}%E0%A4%A`,
      ]) {
        shown.push((await api(path, headers)).body);
      }
    }
    shown.push((await api('/api/v1/countries', { authorization: `Bearer ${key}x` })).body);
    shown.push(
      (await api('/api/v1/countries', { authorization: `Bearer ${key}`, 'x-api-key': 'other' }))
        .body,
    );

    // The operator's view of it.
    for (const args of [
      ['keys', 'list', '--email', 'ann@example.com'],
      ['accounts', 'show', '--email', 'ann@example.com'],
      ['accounts', 'list'],
    ]) {
      const result = await cli.run([...args, '--json']);
      expect(result.code).toBe(0);
      shown.push(result.stdout, result.stderr);
    }

    // Revoke it, then use it: the refusal does not echo it either.
    const keyId = /\/account\/keys\/([0-9a-f-]{36})\/revoke/.exec(shown.at(-7) ?? '')?.[1];
    const page = (await request('/account')).body;
    const id = keyId ?? /\/account\/keys\/([0-9a-f-]{36})\/revoke/.exec(page)?.[1] ?? '';
    expect((await form(`/account/keys/${id}/revoke`, {})).status).toBe(303);
    const refused = await api('/api/v1/countries', { authorization: `Bearer ${key}` });
    expect(refused.status).toBe(401);
    shown.push(refused.body, (await request('/account')).body);
    expect((await form('/signout', {})).status).toBe(303);
    shown.push((await request('/account')).body);

    expect(await server.stop()).toBe(0);
    expect(log).toContain('/api/v1/countries');
    expect(log).toContain('onair_[redacted]');
    for (const [name, secret] of [
      ['sign-in token', token],
      ['session id', sessionId],
      ['API key', key],
      ['API key body', key.slice(6, -4)],
      ['webhook secret', webhookSecret ?? 'missing'],
      ['webhook secret body', (webhookSecret ?? 'missing').slice(6)],
    ] as const) {
      expect(log.includes(secret), `${name} in the log`).toBe(false);
      const leak = shown.findIndex((text) => text.includes(secret));
      expect(leak, `${name} shown: ${shown[leak]?.slice(0, 300)}`).toBe(-1);
    }
  });
});
