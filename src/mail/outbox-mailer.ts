import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { composeMessage } from './mail-message.js';
import type { MailLog, Mailer, OutgoingMail } from './types.js';

/** Writes a mail as `<time>-<random>.eml` (sortable, unique); renamed into place when whole. */
export async function writeToOutbox(
  dir: string,
  from: string,
  mail: OutgoingMail,
  prefix = '',
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const name = `${prefix}${stamp}-${randomBytes(4).toString('hex')}.eml`;
  const file = join(dir, name);
  const temp = join(dir, `.${name}.tmp`);
  await writeFile(temp, await composeMessage(from, mail), { mode: 0o600 });
  await rename(temp, file);
  return file;
}

/**
 * The embedded default without SMTP: every mail goes to the log (so a local operator can click
 * the link there) and to an `.eml` file in the outbox folder.
 */
export function createOutboxMailer(options: { dir: string; from: string; log: MailLog }): Mailer {
  return {
    async send(mail) {
      const file = await writeToOutbox(options.dir, options.from, mail);
      options.log.info(
        { to: mail.to, subject: mail.subject, file, text: mail.text },
        'mail written to the outbox (no SMTP_URL set)',
      );
    },
    async close() {},
  };
}
