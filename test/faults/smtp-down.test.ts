import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, startServe, type CliSandbox } from '../helpers/cli-runner.js';
import { outboxFiles } from '../helpers/outbox.js';
import { freePort } from '../helpers/redis-process.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';

/**
 * The SMTP server down, or up but silent, under a real `bin/onair serve`: sign-in still answers
 * at once (the mail goes out in the background), the mail is kept in the outbox as
 * `failed-….eml` with the failure logged, and once SMTP is back the next link is delivered
 * without a restart.
 */

let cli: CliSandbox;

beforeAll(() => {
  cli = createCliSandbox();
});

afterAll(() => {
  cli?.dispose();
});

async function requestLink(url: string, email: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ email }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  await res.text();
  return { status: res.status, ms: Date.now() - started };
}

describe('SMTP down', () => {
  it('refusing connections: sign-in answers at once, the mail is kept; back up, mail flows again', async () => {
    const port = await freePort();
    const outbox = join(cli.dir, 'outbox-down');
    const server = await startServe(cli, [], {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      OUTBOX_DIR: outbox,
      LOG_LEVEL: 'info',
    });
    let log = '';
    server.child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const answer = await requestLink(server.url, 'ann@example.com');
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(1_500);
      await expect.poll(() => outboxFiles(outbox), { timeout: 10_000 }).toHaveLength(1);
      expect(outboxFiles(outbox)[0]).toMatch(/^failed-/);
      // The mail is kept first, then the failure logged.
      await expect
        .poll(() => log, { timeout: 5_000 })
        .toContain('SMTP did not take the mail; kept in the outbox');

      const sink = await startSmtpSink(port);
      try {
        expect((await requestLink(server.url, 'bob@example.com')).status).toBe(200);
        const mail = await sink.waitForMail('bob@example.com', 10_000);
        expect(mail.text).toMatch(/\/signin\/confirm\?token=[\w-]{43}/);
      } finally {
        await sink.close();
      }
    } finally {
      await server.stop();
    }
  });

  it('accepting connections but never greeting: sign-in still answers at once', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    // nodemailer's waits as configured by default (10 s): the answer must not wait for them.
    const server = await startServe(cli, [], {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      OUTBOX_DIR: join(cli.dir, 'outbox-silent'),
    });
    try {
      for (const email of ['carol@example.com', 'dave@example.com']) {
        const answer = await requestLink(server.url, email);
        expect(answer.status).toBe(200);
        expect(answer.ms).toBeLessThan(1_500);
      }
      expect(sockets.size).toBeGreaterThan(0);
      // Shutting down waits for the mails in flight to time out and be kept: none is lost.
      expect(await server.stop()).toBe(0);
      const kept = outboxFiles(join(cli.dir, 'outbox-silent'));
      expect(kept).toHaveLength(2);
      expect(kept.every((name) => name.startsWith('failed-'))).toBe(true);
    } finally {
      if (server.child.exitCode === null) await server.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
