import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { createMailer } from './create-mailer.js';
import { createOutboxMailer } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';
import type { MailLog, OutgoingMail } from './types.js';

const FROM = 'Onair <no-reply@onair.test>';
const LINK = 'https://onair.test/signin/confirm?token=abc123';
const mail: OutgoingMail = {
  to: 'ann@example.com',
  subject: 'Your Onair sign-in link',
  text: `Hello,\n\nOpen this link to sign in:\n\n${LINK}\n\nÜnïcode too.`,
  html: `<p>Open <a href="${LINK}">the link</a></p>`,
};
const EML_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{12}\.eml$/;
/** The mails of an outbox folder (each has its text beside it). */
const emls = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.eml'));
const textOf = (eml: string) => eml.replace(/\.eml$/, '.txt');

function memoryLog() {
  const lines: { level: 'info' | 'error'; obj: object; msg: string }[] = [];
  const log: MailLog = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { log, lines };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );
}

/** A port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
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
    const { log, lines } = memoryLog();
    const mailer = createMailer({ smtpUrl: sink.url, mailFrom: FROM, outboxDir: dir }, log);
    await mailer.send(mail);
    await mailer.close();
    const received = await sink.waitForMail('ann@example.com');
    expect(received.from?.value).toEqual([{ name: 'Onair', address: 'no-reply@onair.test' }]);
    expect(received.to).toMatchObject({ value: [{ address: 'ann@example.com' }] });
    expect(received.subject).toBe(mail.subject);
    expect(received.text?.trim()).toBe(mail.text);
    expect(received.html).toBe(mail.html);
    expect(readdirSync(dir)).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('sends a text-only mail without an HTML part', async () => {
    const mailer = createSmtpMailer({ url: sink.url, from: FROM });
    await mailer.send({ to: 'bob@example.com', subject: 'Plain', text: 'Just text.' });
    const received = await sink.waitForMail('bob@example.com');
    expect(received.text?.trim()).toBe('Just text.');
    expect(received.html).toBe(false);
  });

  it('accepts SMTP_URL credentials (the sink offers no AUTH, so none is attempted)', async () => {
    const url = sink.url.replace('smtp://', 'smtp://user:secret@');
    await createSmtpMailer({ url, from: FROM }).send(mail);
    expect((await sink.waitForMail('ann@example.com')).subject).toBe(mail.subject);
  });
});

describe('SMTP sink helper', () => {
  let sink: SmtpSink;
  beforeEach(async () => {
    sink = await startSmtpSink();
  });
  afterEach(async () => {
    await sink.close();
  });

  it('gives a plain smtp:// URL on loopback', () => {
    expect(sink.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
  });

  it('returns each mail to an address once, in order, and waits for one not yet sent', async () => {
    const mailer = createSmtpMailer({ url: sink.url, from: FROM });
    await mailer.send({ ...mail, subject: 'first' });
    await mailer.send({ ...mail, to: 'other@example.com', subject: 'other' });
    await mailer.send({ ...mail, subject: 'second' });
    expect(sink.messages.map((m) => m.subject)).toEqual(['first', 'other', 'second']);
    expect((await sink.waitForMail('ANN@example.com')).subject).toBe('first');
    expect((await sink.waitForMail('ann@example.com')).subject).toBe('second');

    const third = sink.waitForMail('ann@example.com');
    await mailer.send({ ...mail, subject: 'third' });
    expect((await third).subject).toBe('third');
  });

  it('rejects after the timeout when no such mail arrives', async () => {
    await expect(sink.waitForMail('nobody@example.com', 100)).rejects.toThrow(
      /no mail to nobody@example.com within 100 ms/,
    );
  });
});

describe('when SMTP fails', () => {
  function expectFailureHandled(lines: ReturnType<typeof memoryLog>['lines']): void {
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ to: 'ann@example.com', error: expect.any(String) });
    // Neither the link nor any other part of the body reaches the log.
    expect(JSON.stringify(lines)).not.toContain('token=');
    expect(JSON.stringify(lines)).not.toContain('Open this link');
    const files = emls(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^failed-\d{4}-\d{2}-\d{2}T.*\.eml$/);
    expect(errors[0]?.obj).toMatchObject({ keptIn: join(dir, files[0] ?? '') });
    expect(readdirSync(dir).sort()).toEqual([files[0], textOf(files[0] ?? '')]);
  }

  it('rejects, logs without the body and keeps the mail when the server is down', async () => {
    const { log, lines } = memoryLog();
    const url = `smtp://127.0.0.1:${await closedPort()}`;
    const mailer = createMailer({ smtpUrl: url, mailFrom: FROM, outboxDir: dir }, log);
    await expect(mailer.send(mail)).rejects.toThrow();
    expectFailureHandled(lines);
    const kept = await simpleParser(readFileSync(join(dir, emls(dir)[0] ?? '')));
    expect(kept.text?.trim()).toBe(mail.text);
    expect(kept.subject).toBe(mail.subject);
  });

  it('does the same when the server refuses the recipient', async () => {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (_address, _session, callback) =>
        callback(Object.assign(new Error('no such user'), { responseCode: 550 })),
    });
    const port = await listen(server.server);
    try {
      const { log, lines } = memoryLog();
      const url = `smtp://127.0.0.1:${port}`;
      const mailer = createMailer({ smtpUrl: url, mailFrom: FROM, outboxDir: dir }, log);
      await expect(mailer.send(mail)).rejects.toThrow(/no such user/);
      expectFailureHandled(lines);
      expect(lines[0]?.obj).toMatchObject({ error: expect.stringContaining('550') });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gives up on a server that never greets (timeouts can be tuned in SMTP_URL)', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    const port = await listen(silent);
    try {
      const { log, lines } = memoryLog();
      const url = `smtp://127.0.0.1:${port}?greetingTimeout=200`;
      const mailer = createMailer({ smtpUrl: url, mailFrom: FROM, outboxDir: dir }, log);
      const started = Date.now();
      await expect(mailer.send(mail)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
      expectFailureHandled(lines);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('still rejects with the SMTP error when the outbox cannot be written either', async () => {
    const { log, lines } = memoryLog();
    writeFileSync(join(dir, 'not-a-dir'), '');
    const outboxDir = join(dir, 'not-a-dir', 'outbox');
    const url = `smtp://127.0.0.1:${await closedPort()}`;
    const mailer = createMailer({ smtpUrl: url, mailFrom: FROM, outboxDir }, log);
    await expect(mailer.send(mail)).rejects.toThrow(/ECONNREFUSED/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      obj: {
        to: 'ann@example.com',
        error: expect.stringContaining('ECONNREFUSED'),
        code: expect.any(String),
        keptIn: null,
        keepError: expect.any(String),
      },
    });
    expect(JSON.stringify(lines)).not.toContain('token=');
  });
});

describe('outbox mailer (no SMTP_URL)', () => {
  it('writes a parseable .eml and its text, and logs the recipient, subject and file only', async () => {
    const { log, lines } = memoryLog();
    const outbox = join(dir, 'data', 'outbox');
    const mailer = createMailer({ smtpUrl: null, mailFrom: FROM, outboxDir: outbox }, log);
    await mailer.send(mail);
    await mailer.close();

    const files = emls(outbox);
    expect(files).toHaveLength(1);
    const name = files[0] ?? '';
    expect(name).toMatch(EML_NAME);
    expect(readdirSync(outbox).sort()).toEqual([name, textOf(name)]);
    // The text as written, UTF-8: the link whole on its line (the .eml wraps it).
    expect(readFileSync(join(outbox, textOf(name)), 'utf8')).toBe(mail.text);
    expect(statSync(join(outbox, textOf(name))).mode & 0o777).toBe(0o600);
    expect(statSync(join(outbox, name)).mode & 0o777).toBe(0o600);
    const parsed = await simpleParser(readFileSync(join(outbox, name)));
    expect(parsed.from?.value).toEqual([{ name: 'Onair', address: 'no-reply@onair.test' }]);
    expect(parsed.to).toMatchObject({ text: 'ann@example.com' });
    expect(parsed.subject).toBe(mail.subject);
    expect(parsed.text?.trim()).toBe(mail.text);
    expect(parsed.html).toBe(mail.html);

    expect(lines).toEqual([
      {
        level: 'info',
        obj: {
          to: 'ann@example.com',
          subject: mail.subject,
          file: join(outbox, textOf(name)),
        },
        msg: expect.any(String),
      },
    ]);
  });

  it('gives every mail its own file, with no temporary files left behind', async () => {
    const { log, lines } = memoryLog();
    const mailer = createOutboxMailer({ dir, from: FROM, log });
    const recipients = Array.from({ length: 20 }, (_, i) => `user${i}@example.com`);
    await Promise.all(recipients.map((to) => mailer.send({ ...mail, to, html: undefined })));

    const files = emls(dir);
    expect(files).toHaveLength(20);
    expect(readdirSync(dir)).toHaveLength(40);
    for (const file of files) expect(file).toMatch(EML_NAME);
    const parsed = await Promise.all(files.map((f) => simpleParser(readFileSync(join(dir, f)))));
    const to = parsed.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : ''));
    expect(to.sort()).toEqual([...recipients].sort());
    expect(parsed.every((m) => m.html === false)).toBe(true);
    expect(new Set(lines.map((l) => (l.obj as { file: string }).file)).size).toBe(20);
  });
});
