import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { disableWebhook } from '../helpers/disable-webhook.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { WEBHOOK_TESTS_PER_WINDOW } from '../../src/web/webhook-page-routes.js';
import { getPage, sameSite, signIn } from './web-harness.js';

/** The webhook pages of the account, on TEST_ENGINE (the suite runs on both). */

let t: TestApp;
let receiver: WebhookReceiver;
let ann: string;
const TG4 = channelIdFor('tg4.ie');

beforeAll(async () => {
  // The receiver is on this machine: plain http to loopback is allowed for tests only.
  t = await createTestApp({ WEBHOOK_ALLOW_HTTP: '1' });
  receiver = await startWebhookReceiver();
  await ingestXmltv(
    t.temp.store.ingest,
    { source: fixturePath('basic.xml') },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: t.clock.ms },
  );
  ann = await signIn(t, 'ann@example.com');
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** Posts form fields in order, repeats allowed (checkboxes). */
function post(url: string, fields: [string, string][], cookie: string, headers = sameSite(t)) {
  return t.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const shownSecret = (body: string) =>
  /<code id="webhook-secret" data-secret>([^<]+)<\/code>/.exec(body)?.[1] ?? '';
const hooksOf = async (email: string) => {
  const account = await t.temp.store.accounts.findAccountByEmail(email);
  return t.temp.store.webhooks.listWebhooks(account?.id ?? '');
};

/** The new-webhook form, sent for TG4's changes to the receiver. */
const postTg4Webhook = (cookie: string) =>
  post(
    '/account/webhooks',
    [
      ['url', receiver.url],
      ['filter', 'channels'],
      ['channel', TG4],
    ],
    cookie,
  );

describe(`webhook pages (${TEST_ENGINE})`, () => {
  it('creates a webhook, shows its secret once, sends a test request, logs it, deletes with a confirm step', async () => {
    const form = await getPage(t, '/account/webhooks/new?q=tg4', ann);
    expect(form.statusCode).toBe(200);
    // Its search posts the form back (the URL, which may hold a token, stays out of the
    // address and the browser's history); what is typed stays, the finds come as boxes.
    expect(form.body).toMatch(/formmethod="post"\s+formaction="\/account\/webhooks\/new"/);
    const searched = await post(
      '/account/webhooks/new',
      [
        ['url', 'https://hooks.example/in?token=abc'],
        ['filter', 'channels'],
        ['q', 'tg4'],
      ],
      ann,
    );
    expect(searched.statusCode).toBe(200);
    expect(searched.body).toContain('value="https://hooks.example/in?token=abc"');
    expect(searched.body).toContain(`value="${TG4}"`);
    expect(await hooksOf('ann@example.com')).toEqual([]);
    expect(form.body).toContain('name="url"');
    // The search found the channel, offered as a box to tick.
    expect(form.body).toMatch(new RegExp(`name="channel" value="${TG4}"`));

    const posted = await postTg4Webhook(ann);
    expect(posted.statusCode).toBe(303);
    const location = String(posted.headers.location);
    expect(location).toMatch(/^\/account\/webhooks\/[0-9a-f-]{36}\/secret$/);
    const [webhook] = await hooksOf('ann@example.com');
    expect(webhook).toMatchObject({
      url: receiver.url,
      filter: { kind: 'channels', channelIds: [TG4] },
    });
    const id = webhook?.id ?? '';

    const shown = await getPage(t, location, ann);
    expect(shown.statusCode).toBe(200);
    const secret = shownSecret(shown.body);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await t.temp.store.webhooks.webhookSecret(id)).toBe(secret);
    // Its "Send a test request" sends one (a form), not a link to a page with another button.
    expect(shown.body).toMatch(
      new RegExp(
        `<form method="post" action="/account/webhooks/${id}/test"[^>]*>\\s*<button type="submit">Send a test request</button>`,
      ),
    );
    // Once: a reload lands on the webhook's page, which says so.
    const again = await getPage(t, location, ann);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(`/account/webhooks/${id}?notice=secret-shown`);
    const detail = await getPage(t, String(again.headers.location), ann);
    expect(detail.body).toContain('is shown only once');
    expect(detail.body).not.toContain(secret);

    const account = await getPage(t, '/account', ann);
    expect(account.body).toContain('<h2>Webhooks</h2>');
    expect(account.body).toContain(`<code>${receiver.url}</code>`);
    expect(account.body).toContain('<strong>Active</strong>');
    expect(account.body).toContain('none yet');
    expect(account.body).not.toContain(secret);

    // A test request from the page: signed, sent, and the first line of the log.
    const tested = await post(`/account/webhooks/${id}/test`, [], ann);
    expect(tested.statusCode).toBe(303);
    expect(tested.headers.location).toBe(`/account/webhooks/${id}?notice=tested#attempts`);
    const request = receiver.received.at(-1);
    expect(
      await verifyWebhook(
        secret,
        String(request?.headers['onair-signature']),
        request?.body ?? '',
        {
          now: t.clock.ms,
        },
      ),
    ).toEqual({ webhookId: id, changes: [] });
    const logged = await getPage(t, `/account/webhooks/${id}`, ann);
    expect(logged.body).toMatch(
      /<td data-label="What">Test request<\/td>\s*<td data-label="Answer"><span class="ok-text">HTTP 200<\/span><\/td>/,
    );
    receiver.answers = [500];
    await post(`/account/webhooks/${id}/test`, [], ann);
    const failed = await getPage(t, `/account`, ann);
    expect(failed.body).toContain('<span class="error">HTTP 500: receiver says 500</span>');

    // Delete asks first; its button posts to the same address.
    const confirm = await getPage(t, `/account/webhooks/${id}/delete`, ann);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`action="/account/webhooks/${id}/delete"`);
    expect(await hooksOf('ann@example.com')).toHaveLength(1);
    const deleted = await post(`/account/webhooks/${id}/delete`, [], ann);
    expect(deleted.headers.location).toBe('/account?notice=webhook-deleted#webhooks');
    expect(await hooksOf('ann@example.com')).toEqual([]);
    expect((await getPage(t, '/account?notice=webhook-deleted', ann)).body).toContain(
      'The webhook is deleted.',
    );
  });

  it('sends no test request for an account that cannot call the API (disabled by the operator)', async () => {
    const cookie = await signIn(t, 'dee@example.com');
    const posted = await postTg4Webhook(cookie);
    expect(posted.statusCode).toBe(303);
    const [webhook] = await hooksOf('dee@example.com');
    const account = await t.temp.store.accounts.findAccountByEmail('dee@example.com');
    await t.temp.store.accounts.updateAccount(account?.id ?? '', { disabled: true }, t.clock.ms);
    const before = receiver.received.length;
    const tested = await post(`/account/webhooks/${webhook?.id}/test`, [], cookie);
    expect(tested.statusCode).toBe(303);
    expect(tested.headers.location).toBe(`/account/webhooks/${webhook?.id}?notice=not-sent`);
    expect(receiver.received.length).toBe(before);
    const page = await getPage(t, String(tested.headers.location), cookie);
    expect(page.body).toContain('No test request was sent: this account cannot call the API now');
    expect(await t.temp.store.webhooks.listAttempts(webhook?.id ?? '')).toEqual([]);
    // The later cases count the webhooks there are.
    await t.temp.store.webhooks.deleteWebhook(webhook?.id ?? '');
  });

  it('shows the form again with why for a refused URL or filter, and 10 at most', async () => {
    const refused = async (fields: [string, string][], status: number, message: string) => {
      const res = await post('/account/webhooks', fields, ann);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
      expect(res.body).toContain(message);
      // What was typed stays typed.
      const url = fields.find(([k]) => k === 'url')?.[1] ?? '';
      expect(res.body).toContain(`value="${url}"`);
    };
    await refused(
      [
        ['url', 'http://10.0.0.1/hook'],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      400,
      '10.0.0.1 is a private network address: webhooks go to public addresses.',
    );
    await refused(
      [
        ['url', 'https://169.254.169.254/latest'],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      400,
      '169.254.169.254 is an address that cannot receive webhooks',
    );
    await refused(
      [
        ['url', receiver.url],
        ['filter', 'channels'],
      ],
      400,
      'Pick at least one channel.',
    );
    // Both wrong: both said at once, each by its field, and listed at the top.
    const both = await post(
      '/account/webhooks',
      [
        ['url', 'http://10.0.0.1/hook'],
        ['filter', 'channels'],
      ],
      ann,
    );
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain('<strong>The webhook is not created:</strong> 2 fields need');
    // Said by the title too, and the summary takes the focus as the page opens.
    expect(both.body).toContain('<title>Not created: New webhook · Onair</title>');
    expect(both.body).toContain('<div class="error-summary" role="alert" tabindex="-1" autofocus>');
    expect(both.body).toMatch(
      /<input\s+id="webhook-url"[^>]*aria-invalid="true" aria-describedby="webhook-url-error"/,
    );
    expect(both.body).toContain(
      '<p class="error field-error" id="webhook-url-error">The address 10.0.0.1 is a private network address: webhooks go to public addresses.</p>',
    );
    expect(both.body).toMatch(
      /<fieldset\s+id="webhook-channels"\s+aria-describedby="webhook-channels-error"/,
    );
    expect(both.body).toContain(
      '<p class="error field-error" id="webhook-channels-error">Pick at least one channel.</p>',
    );
    expect(both.body).toContain('<li><a href="#webhook-url">');
    expect(both.body).toContain('<li><a href="#webhook-channels">');
    await refused(
      [
        ['url', 'not a url'],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      400,
      'The URL is not a valid absolute URL.',
    );
    expect(await hooksOf('ann@example.com')).toEqual([]);

    const country: [string, string][] = [
      ['url', receiver.url],
      ['filter', 'country'],
      ['country', 'IE'],
    ];
    for (let i = 0; i < 10; i++)
      expect((await post('/account/webhooks', country, ann)).statusCode).toBe(303);
    await refused(country, 409, 'An account holds at most 10 webhooks.');
    const account = await getPage(t, '/account', ann);
    expect(account.body).toContain('You have 10 webhooks, the most an account can hold.');
    for (const hook of await hooksOf('ann@example.com'))
      await t.temp.store.webhooks.deleteWebhook(hook.id);
  });

  it('turns a disabled webhook back on from its page, and offers it only when disabled', async () => {
    await post(
      '/account/webhooks',
      [
        ['url', receiver.url],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      ann,
    );
    const [hook] = await hooksOf('ann@example.com');
    const id = hook?.id ?? '';
    const button = `action="/account/webhooks/${id}/enable"`;
    expect((await getPage(t, `/account/webhooks/${id}`, ann)).body).not.toContain(button);

    // Disabled as the delivery disables it after a day of failures.
    const { webhooks } = t.temp.store;
    await disableWebhook(t.temp.store, id, t.clock.ms);
    const disabled = await getPage(t, `/account/webhooks/${id}`, ann);
    expect(disabled.body).toContain('<strong class="error">Disabled</strong>');
    expect(disabled.body).toContain(button);
    // The operator sees it in /metrics.
    const states = async () =>
      Object.fromEntries(
        [
          ...(await t.get('/metrics')).body.matchAll(/^onair_webhooks\{state="(\w+)"\} (\d+)$/gm),
        ].map((m) => [m[1], Number(m[2])]),
      );
    expect(await states()).toEqual({ active: 0, retrying: 0, disabled: 1 });

    // Other sites cannot turn it on.
    const cross = await post(`/account/webhooks/${id}/enable`, [], ann, {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(cross.statusCode).toBe(403);
    expect((await webhooks.findWebhook(id))?.disabledAt).not.toBeNull();

    const enabled = await post(`/account/webhooks/${id}/enable`, [], ann);
    expect(enabled.statusCode).toBe(303);
    expect(enabled.headers.location).toBe(`/account/webhooks/${id}?notice=enabled`);
    const shown = await getPage(t, `/account/webhooks/${id}?notice=enabled`, ann);
    expect(shown.body).toContain('The webhook is on again');
    expect(shown.body).toContain('<strong>Active</strong>');
    expect(shown.body).not.toContain(button);
    expect(await webhooks.findWebhook(id)).toMatchObject({ failures: 0, disabledAt: null });
    expect(await states()).toEqual({ active: 1, retrying: 0, disabled: 0 });
    // A second click (another tab): the page, without a notice.
    const again = await post(`/account/webhooks/${id}/enable`, [], ann);
    expect(again.headers.location).toBe(`/account/webhooks/${id}`);
    await post(`/account/webhooks/${id}/delete`, [], ann);
  });

  it("refuses other sites' forms and answers another account's webhook as missing", async () => {
    const cross = await post(
      '/account/webhooks',
      [
        ['url', receiver.url],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      ann,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(cross.statusCode).toBe(403);
    expect(await hooksOf('ann@example.com')).toEqual([]);

    const bob = await signIn(t, 'bob@example.com');
    await post(
      '/account/webhooks',
      [
        ['url', receiver.url],
        ['filter', 'country'],
        ['country', 'IE'],
      ],
      bob,
    );
    const [bobs] = await hooksOf('bob@example.com');
    for (const path of ['', '/delete', '/secret']) {
      expect((await getPage(t, `/account/webhooks/${bobs?.id}${path}`, ann)).statusCode).toBe(404);
    }
    expect((await post(`/account/webhooks/${bobs?.id}/delete`, [], ann)).statusCode).toBe(404);
    expect((await post(`/account/webhooks/${bobs?.id}/test`, [], ann)).statusCode).toBe(404);
    expect((await post(`/account/webhooks/${bobs?.id}/enable`, [], ann)).statusCode).toBe(404);
    expect(await hooksOf('bob@example.com')).toHaveLength(1);
    // Signed out: to the sign-in page.
    expect((await getPage(t, '/account/webhooks/new')).headers.location).toBe('/signin');
  });

  it(`sends ${WEBHOOK_TESTS_PER_WINDOW} test requests per account in a quarter of an hour by the clock, then answers 429 until the next`, async () => {
    const tess = await signIn(t, 'tess@example.com');
    expect((await postTg4Webhook(tess)).statusCode).toBe(303);
    const [webhook] = await hooksOf('tess@example.com');
    const testUrl = `/account/webhooks/${webhook?.id}/test`;
    const before = receiver.received.length;
    receiver.answers = [];
    for (let i = 0; i < WEBHOOK_TESTS_PER_WINDOW; i++) {
      expect((await post(testUrl, [], tess)).statusCode).toBe(303);
    }
    expect(receiver.received.length).toBe(before + WEBHOOK_TESTS_PER_WINDOW);
    const refused = await post(testUrl, [], tess);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.body).toContain('Too many test requests');
    expect(refused.body).toContain(`href="/account/webhooks/${webhook?.id}"`);
    expect(receiver.received.length).toBe(before + WEBHOOK_TESTS_PER_WINDOW);
    // Counted per account: another account's test still goes.
    const uma = await signIn(t, 'uma@example.com');
    expect((await postTg4Webhook(uma)).statusCode).toBe(303);
    const [umas] = await hooksOf('uma@example.com');
    expect((await post(`/account/webhooks/${umas?.id}/test`, [], uma)).statusCode).toBe(303);
    expect(receiver.received.length).toBe(before + WEBHOOK_TESTS_PER_WINDOW + 1);
    // The next window sends again.
    t.clock.advance(retryAfter * 1000);
    expect((await post(testUrl, [], tess)).statusCode).toBe(303);
    expect(receiver.received.length).toBe(before + WEBHOOK_TESTS_PER_WINDOW + 2);
  });
});
