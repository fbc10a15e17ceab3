import { describe, expect, it } from 'vitest';
import { addressClass } from './address-class.js';
import {
  checkWebhookTarget,
  webhookRefusalSentence,
  WebhookUrlError,
  type Resolver,
} from './webhook-target.js';

/** The URL rules: no request leaves for an address the operator did not allow. */

const strict = { allowHttp: false, allowPrivate: false };
const forTests = { allowHttp: true, allowPrivate: false };
const internal = { allowHttp: false, allowPrivate: true };

/** A resolver that knows a few names; it never asks the network. */
const names: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'loopback.example': ['127.0.0.1'],
  'mixed.example': ['93.184.215.14', '10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'office.example': ['192.168.1.20'],
};
const resolve: Resolver = async (host) => {
  const found = names[host];
  if (host === 'slow.example') throw Object.assign(new Error('timeout'), { code: 'EAI_AGAIN' });
  if (found === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const refused = (url: string, policy: typeof strict) =>
  expect(checkWebhookTarget(url, policy, resolve)).rejects.toBeInstanceOf(WebhookUrlError);

describe('webhook URLs', () => {
  it('takes https to public addresses, connecting to the first address checked', async () => {
    const target = await checkWebhookTarget('https://hooks.example.com/onair?t=1', strict, resolve);
    expect(target).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(target.url.href).toBe('https://hooks.example.com/onair?t=1');
    await expect(
      checkWebhookTarget('https://93.184.215.14/x', strict, resolve),
    ).resolves.toMatchObject({ address: '93.184.215.14' });
  });

  it('refuses http, except to this machine with WEBHOOK_ALLOW_HTTP', async () => {
    await expect(checkWebhookTarget('http://hooks.example.com/', strict, resolve)).rejects.toThrow(
      'a webhook URL must start with https://',
    );
    await expect(
      checkWebhookTarget('http://hooks.example.com/', forTests, resolve),
    ).rejects.toThrow(/plain http only reaches this machine/);
    await expect(
      checkWebhookTarget('http://127.0.0.1:9/x', forTests, resolve),
    ).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkWebhookTarget('http://[::1]:9/x', forTests, resolve)).resolves.toMatchObject({
      address: '::1',
      family: 6,
    });
    await expect(checkWebhookTarget('ftp://hooks.example.com/', forTests, resolve)).rejects.toThrow(
      'a webhook URL must start with https://',
    );
  });

  it('refuses private, loopback, link-local and metadata addresses, by IP or by name', async () => {
    await expect(checkWebhookTarget('http://10.0.0.1/', forTests, resolve)).rejects.toThrow(
      '10.0.0.1 is a private network address: webhooks go to public addresses',
    );
    await expect(checkWebhookTarget('http://169.254.169.254/', forTests, resolve)).rejects.toThrow(
      /169\.254\.169\.254 is an address that cannot receive webhooks/,
    );
    await expect(checkWebhookTarget('https://[::1]/', strict, resolve)).rejects.toThrow(
      '::1 is a loopback address (this machine): webhooks go to public addresses',
    );
    await expect(checkWebhookTarget('http://[::1]/', strict, resolve)).rejects.toThrow(
      'a webhook URL must start with https://',
    );
    await expect(checkWebhookTarget('https://loopback.example/', strict, resolve)).rejects.toThrow(
      'loopback.example (127.0.0.1) is a loopback address (this machine): webhooks go to public addresses',
    );
    await refused('https://metadata.example/latest', { allowHttp: true, allowPrivate: true });
    // One private address among public ones is enough to refuse the name.
    await expect(checkWebhookTarget('https://mixed.example/', strict, resolve)).rejects.toThrow(
      'mixed.example (10.0.0.7) is a private network address',
    );
    // Written other ways, the same addresses.
    for (const url of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[64:ff9b::a00:1]/',
      'https://[2002:a00:1::]/',
      'https://0.0.0.0/',
      'https://[::]/',
      'https://[fe80::1]/',
      'https://[fd00::1]/',
      'https://100.64.0.1/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
    ]) {
      await refused(url, strict);
    }
  });

  it('allows private networks (and loopback) only with WEBHOOK_ALLOW_PRIVATE', async () => {
    await expect(
      checkWebhookTarget('https://office.example/x', internal, resolve),
    ).resolves.toMatchObject({ address: '192.168.1.20' });
    await expect(checkWebhookTarget('https://10.0.0.1/', internal, resolve)).resolves.toMatchObject(
      {
        address: '10.0.0.1',
      },
    );
    await refused('https://office.example/x', forTests);
    // Plain http to a private network needs both settings.
    await refused('http://office.example/x', internal);
    await expect(
      checkWebhookTarget(
        'http://office.example/x',
        { allowHttp: true, allowPrivate: true },
        resolve,
      ),
    ).resolves.toMatchObject({ address: '192.168.1.20' });
  });

  it('refuses credentials, fragments, unresolvable names and what is not a URL', async () => {
    await expect(
      checkWebhookTarget('https://user:pw@hooks.example.com/', strict, resolve),
    ).rejects.toThrow(/may not hold a user name or password/);
    await expect(
      checkWebhookTarget('https://hooks.example.com/#x', strict, resolve),
    ).rejects.toThrow(/#fragment/);
    await expect(checkWebhookTarget('https://nowhere.example/', strict, resolve)).rejects.toThrow(
      'the host nowhere.example could not be found in DNS',
    );
    await expect(checkWebhookTarget('https://slow.example/', strict, resolve)).rejects.toThrow(
      'the host slow.example could not be looked up in DNS just now',
    );
    await expect(checkWebhookTarget('hooks.example.com/x', strict, resolve)).rejects.toThrow(
      'the URL is not a valid absolute URL',
    );
    await expect(
      checkWebhookTarget(`https://a.example/${'x'.repeat(2048)}`, strict, resolve),
    ).rejects.toThrow(/at most 2048 characters/);
  });
});

describe('address classes', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.128.0.1', 'public'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:192.168.1.1', 'private'],
    ['64:ff9b::c0a8:101', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:808:808', 'public'],
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b:1:ab00:1::', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['0.0.0.0', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fe80::1%eth0', 'forbidden'],
    ['::', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['224.0.0.251', 'forbidden'],
    ['239.255.255.250', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['192.0.2.1', 'forbidden'],
    ['2001:db8::1', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['not an address', 'forbidden'],
  ])('%s is %s', (address, kind) => {
    expect(addressClass(address)).toBe(kind);
  });

  it('says why in a sentence for a page: the host as typed, no resolver code', async () => {
    const sentence = async (url: string) => {
      const error: unknown = await checkWebhookTarget(url, strict, resolve).catch((e) => e);
      expect(error).toBeInstanceOf(WebhookUrlError);
      return webhookRefusalSentence(error as Error);
    };
    expect(await sentence('https://loopback.example/hook')).toBe(
      'The address loopback.example (127.0.0.1) is a loopback address (this machine): webhooks go to public addresses.',
    );
    expect(await sentence('https://[::1]/')).toBe(
      'The address ::1 is a loopback address (this machine): webhooks go to public addresses.',
    );
    expect(await sentence('https://nowhere.example/')).toBe(
      'The host nowhere.example could not be found in DNS.',
    );
    expect(await sentence('http://hooks.example.com/')).toBe(
      'A webhook URL must start with https://.',
    );
  });
});
