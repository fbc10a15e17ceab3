import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { createMailer } from './create-mailer.js';
import type { MailLog, OutgoingMail } from './types.js';

const FROM = 'Onair <no-reply@onair.test>';
const mail: OutgoingMail = {
  to: 'ann@example.com',
  subject: 'Your Onair sign-in link',
  text: 'Open https://onair.test/signin/confirm?token=abc to sign in. Ünïcode too.',
  html: '<p>Open <a href="https://onair.test/signin/confirm?token=abc">the link</a></p>',
};

function memoryLog() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const log: MailLog = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { log, lines };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-mail-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SMTP mailer', () => {
  let sink: SmtpSink;
  beforeEach(async () => {
    sink = await startSmtpSink();
  });
  afterEach(async () => {
    await sink.close();
  });

  it('delivers text and HTML to a real SMTP server', async () => {
    const { log } = memoryLog();
    const mailer = createMailer({ smtpUrl: sink.url, mailFrom: FROM, outboxDir: dir }, log);
    await mailer.send(mail);
    await mailer.close();
    const received = await sink.waitForMail('ann@example.com');
    expect(received.from?.value).toEqual([{ name: 'Onair', address: 'no-reply@onair.test' }]);
    expect(received.subject).toBe(mail.subject);
    expect(received.text?.trim()).toBe(mail.text);
    expect(received.html).toContain('href="https://onair.test/signin/confirm?token=abc"');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('when SMTP fails', () => {
  it('rejects, logs without the body, and keeps the mail in the outbox', async () => {
    const { log, lines } = memoryLog();
    const url = `smtp://127.0.0.1:${await closedPort()}`;
    const mailer = createMailer({ smtpUrl: url, mailFrom: FROM, outboxDir: dir }, log);
    await expect(mailer.send(mail)).rejects.toThrow();
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors)).toContain('ann@example.com');
    expect(JSON.stringify(errors)).not.toContain('token=abc');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^failed-.*\.eml$/);
    const kept = await simpleParser(readFileSync(join(dir, files[0] ?? '')));
    expect(kept.text?.trim()).toBe(mail.text);
  });
});

describe('outbox mailer (no SMTP_URL)', () => {
  it('writes each mail as a parseable .eml and logs its text', async () => {
    const { log, lines } = memoryLog();
    const outbox = join(dir, 'outbox');
    const mailer = createMailer({ smtpUrl: null, mailFrom: FROM, outboxDir: outbox }, log);
    await mailer.send(mail);
    await mailer.send({ ...mail, to: 'bob@example.com', html: undefined });
    const files = readdirSync(outbox).sort();
    expect(files).toHaveLength(2);
    for (const file of files) expect(file).toMatch(/^\d{4}-\d{2}-\d{2}T.*\.eml$/);
    const parsed = await Promise.all(files.map((f) => simpleParser(readFileSync(join(outbox, f)))));
    expect(parsed.map((m) => m.to && !Array.isArray(m.to) && m.to.text).sort()).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    expect(parsed[0]?.from?.value).toEqual([{ name: 'Onair', address: 'no-reply@onair.test' }]);
    expect(lines.filter((l) => l.level === 'info')).toHaveLength(2);
    expect(JSON.stringify(lines[0]?.obj)).toContain('signin/confirm?token=abc');
  });
});
