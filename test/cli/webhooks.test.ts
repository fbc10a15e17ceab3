import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { loadConfig } from '../../src/config.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { openStore } from '../../src/open-store.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { itWithoutDatabase, openCliSandbox, type EngineCliSandbox } from '../helpers/cli-runner.js';
import { disableWebhook } from '../helpers/disable-webhook.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** `onair webhooks …` as an operator runs it, on the vitest project's engine. */

interface WebhookJson {
  id: string;
  email: string;
  url: string;
  filter: { country?: string; channels?: string[] };
  state: string;
  deliveredSeq: number;
  secret?: string;
  attempts?: { kind: string; status: number | null; error: string | null; changes: number }[];
}

let cli: EngineCliSandbox;
let receiver: WebhookReceiver;

beforeAll(async () => {
  cli = await openCliSandbox();
  // The receiver is on this machine: plain http to loopback is allowed for tests only.
  cli.env.WEBHOOK_ALLOW_HTTP = '1';
  receiver = await startWebhookReceiver();
  await cli.json(['ingest', fixturePath('basic.xml'), '--country', 'IE']);
  await cli.json(['accounts', 'create', '--email', 'ann@example.com', '--verified']);
});

afterAll(async () => {
  await receiver?.close();
  await cli?.dispose();
});

async function fails(args: string[], message: RegExp, env: NodeJS.ProcessEnv = {}) {
  const result = await cli.run(args, env);
  expect(result.code, args.join(' ')).not.toBe(0);
  // One line, a usage error's too.
  const [line, ...rest] = result.stderr.trim().split('\n');
  expect(line).toMatch(message);
  expect(rest, result.stderr).toEqual([]);
}

describe('onair webhooks', () => {
  itWithoutDatabase('has help listing its sub-commands', async () => {
    const result = await cli.run(['webhooks', '--help']);
    expect(result.code).toBe(0);
    for (const sub of ['create', 'list', 'show', 'enable', 'delete', 'test']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    }
  });

  it('creates, lists, shows, tests and deletes webhooks; the secret only at create', async () => {
    // The receiver's own secret in the query is used to deliver, never shown back.
    const created = await cli.json<WebhookJson>([
      'webhooks',
      'create',
      '--email',
      'ann@example.com',
      '--url',
      `${receiver.url}?sig=QSECRET`,
      '--channel',
      'tg4.ie',
      '--channel',
      channelIdFor('rte1.ie'),
    ]);
    expect(created).toMatchObject({
      email: 'ann@example.com',
      // Without its query, `?…` in its place, as the logs show it.
      url: `${receiver.url}?…`,
      filter: { channels: [channelIdFor('tg4.ie'), channelIdFor('rte1.ie')] },
      state: 'active',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const secret = created.secret as string;

    const human = await cli.run([
      'webhooks',
      'create',
      '--email',
      'ann@example.com',
      '--url',
      receiver.url,
      '--country',
      'ie',
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Created webhook [0-9a-f-]{36} for ann@example.com: country IE/);
    // The secret once, on a line of its own, as `keys create` prints a key; another than --json's.
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines.slice(1, -1)).toEqual([
      'Its signing secret, for the receiver; store it now, it will not be shown again:',
    ]);
    expect(lines.at(-1)).toMatch(/^whsec_\S+$/);
    expect(lines.at(-1)).not.toBe(secret);

    const list = await cli.json<WebhookJson[]>(['webhooks', 'list', '--email', 'ann@example.com']);
    expect(list.map((w) => w.filter)).toEqual([
      { channels: [channelIdFor('tg4.ie'), channelIdFor('rte1.ie')] },
      { country: 'IE' },
    ]);
    expect(await cli.json<WebhookJson[]>(['webhooks', 'list'])).toEqual(list);
    const listed = await cli.run(['webhooks', 'list']);
    expect(listed.stdout).toContain(
      `${created.id}  ann@example.com  ${receiver.url}?…  2 channels  active`,
    );

    // A test request: signed, no changes, its answer printed and logged as an attempt.
    const tested = await cli.json<{ status: number; kind: string }>([
      'webhooks',
      'test',
      created.id,
    ]);
    expect(tested).toMatchObject({ id: created.id, kind: 'test', status: 200, error: null });
    const request = receiver.received.at(-1);
    expect(request?.path).toBe('/hook?sig=QSECRET');
    expect((await cli.run(['webhooks', 'show', created.id])).stdout).toContain(
      'Last 1 attempt, newest first:',
    );
    const payload = await verifyWebhook(
      secret,
      request?.headers['onair-signature'] as string,
      request?.body ?? '',
    );
    expect(payload).toEqual({ webhookId: created.id, changes: [] });
    receiver.answers = [500];
    const failed = await cli.run(['webhooks', 'test', created.id]);
    // Said once: one line on stderr, nothing on stdout.
    expect(failed).toEqual({
      code: 1,
      stdout: '',
      stderr: `onair: error: the test request to ${receiver.url}?… failed: HTTP 500: receiver says 500\n`,
    });

    const shown = await cli.json<WebhookJson>(['webhooks', 'show', created.id]);
    expect(shown.attempts?.map((a) => [a.kind, a.status])).toEqual([
      ['test', 500],
      ['test', 200],
    ]);
    const shownText = await cli.run(['webhooks', 'show', created.id]);
    expect(shownText.stdout).toContain('State:      active');
    expect(shownText.stdout).toMatch(
      /Last 2 attempts, newest first:\n {2}\S+ {2}test {2}HTTP 500: receiver says 500 {2}\d+ ms/,
    );

    // Nothing but create ever shows the secret; nothing shows the URL's query.
    for (const args of [
      ['webhooks', 'list'],
      ['webhooks', 'list', '--json'],
      ['webhooks', 'show', created.id],
      ['webhooks', 'show', created.id, '--json'],
    ]) {
      const { stdout } = await cli.run(args);
      expect(stdout).not.toContain(secret);
      expect(stdout).not.toContain('QSECRET');
    }
    expect((await cli.run(['webhooks', 'show', created.id])).stdout).toContain(
      `URL:        ${receiver.url}?…\n`,
    );

    // Made where http:// was allowed, tested where it is not: the line says which setting.
    const noHttp = await cli.run(['webhooks', 'test', created.id], { WEBHOOK_ALLOW_HTTP: '0' });
    expect(noHttp.code).toBe(1);
    expect(noHttp.stderr).toMatch(
      /must start with https:\/\/ \(plain http:\/\/ is allowed only with WEBHOOK_ALLOW_HTTP=1; set it for this command too\)\n$/,
    );

    const deleted = await cli.run(['webhooks', 'delete', created.id]);
    expect(deleted.stdout.trim()).toBe(`Webhook ${created.id} deleted.`);
    await fails(['webhooks', 'show', created.id], /^onair: error: no webhook with id /);
    expect(await cli.json<WebhookJson[]>(['webhooks', 'list'])).toHaveLength(1);
  });

  it('turns a disabled webhook back on, and says so when it was not disabled', async () => {
    const created = await cli.json<WebhookJson>([
      ...['webhooks', 'create', '--email', 'ann@example.com'],
      ...['--url', receiver.url, '--country', 'IE', '--json'],
    ]);
    await fails(
      ['webhooks', 'enable', created.id],
      new RegExp(`^onair: error: webhook ${created.id} is not disabled$`),
    );
    // Disabled as the delivery disables it after a day of failures.
    const store = await openStore(loadConfig({ DATABASE_URL: cli.env.DATABASE_URL }));
    try {
      await disableWebhook(store, created.id, Date.now());
    } finally {
      await store.close();
    }
    expect((await cli.json<WebhookJson>(['webhooks', 'show', created.id, '--json'])).state).toMatch(
      /^disabled/,
    );
    const enabled = await cli.run(['webhooks', 'enable', created.id]);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout.trim()).toBe(`Webhook ${created.id} is on again: it is tried at once.`);
    expect(await cli.json<WebhookJson>(['webhooks', 'show', created.id, '--json'])).toMatchObject({
      state: 'active',
      deliveredSeq: created.deliveredSeq,
    });
    await cli.run(['webhooks', 'delete', created.id]);
  });

  it('refuses bad input in one line, changing nothing', async () => {
    const create = ['webhooks', 'create', '--email', 'ann@example.com'];
    await fails(
      [...create, '--url', 'http://hooks.example.com/x', '--country', 'IE'],
      /^onair: error: a webhook URL must start with https:\/\/$/,
      { WEBHOOK_ALLOW_HTTP: '0' },
    );
    await fails(
      [...create, '--url', 'http://10.0.0.1/x', '--country', 'IE'],
      /^onair: error: 10\.0\.0\.1 is a private network address: webhooks go to public addresses$/,
    );
    await fails(
      [...create, '--url', 'https://169.254.169.254/latest', '--country', 'IE'],
      /^onair: error: 169\.254\.169\.254 is an address that cannot receive webhooks/,
    );
    await fails(
      [...create, '--url', 'https://user:pw@127.0.0.1/x', '--country', 'IE'],
      /^onair: error: a webhook URL may not hold a user name or password/,
    );
    await fails(
      [...create, '--url', receiver.url, '--country', 'IE', '--channel', 'tg4.ie'],
      /^onair: error: give either --country or one or more --channel$/,
    );
    await fails([...create, '--url', receiver.url], /^onair: error: give either --country/);
    await fails(
      [...create, '--url', receiver.url, '--channel', 'nope.ie'],
      /^onair: error: no channel "nope\.ie" in the catalogue \(give a channel id or an XMLTV channel id\)$/,
    );
    await fails(
      [...create, '--url', receiver.url, '--country', 'ZZ'],
      /^onair: error: no channels in country ZZ/,
    );
    // Both wrong: both said, in one line.
    await fails(
      [...create, '--url', 'https://169.254.169.254/x', '--country', 'ZZ'],
      /^onair: error: 169\.254\.169\.254 is an address that cannot receive webhooks[^\n]*; no channels in country ZZ/,
    );
    await fails(
      [
        'webhooks',
        'create',
        '--email',
        'nobody@example.com',
        '--url',
        receiver.url,
        '--country',
        'IE',
      ],
      /^onair: error: no account with e-mail nobody@example.com$/,
    );
    await fails(
      ['webhooks', 'delete', 'not-an-id'],
      /^onair: error: no webhook with id not-an-id$/,
    );
    await fails(
      ['webhooks', 'test', '00000000-0000-4000-8000-000000000000'],
      /^onair: error: no webhook/,
    );
    expect(await cli.json<WebhookJson[]>(['webhooks', 'list'])).toHaveLength(1);
  });

  it('holds at most 10 webhooks per account', async () => {
    await cli.json(['accounts', 'create', '--email', 'cap@example.com', '--verified']);
    const create = [
      'webhooks',
      'create',
      '--email',
      'cap@example.com',
      '--url',
      receiver.url,
      '--country',
      'IE',
    ];
    for (let i = 0; i < 10; i++) await cli.json(create);
    await fails(create, /^onair: error: an account holds at most 10 webhooks$/);
  });
});
