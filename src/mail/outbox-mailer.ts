import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { composeMessage } from './mail-message.js';
import type { MailLog, Mailer, OutgoingMail } from './types.js';

/**
 * Writes a mail as `<prefix><ISO time>-<random>.eml` into `dir` (created if missing) and returns
 * the file's path. Names sort by time and never collide; the file appears only when complete.
 */
export async function writeToOutbox(
  dir: string,
  from: string,
  mail: OutgoingMail,
  prefix = '',
): Promise<string> {
  const message = await composeMessage(from, mail);
  // Sign-in links are as good as a password for 15 minutes: owner-only folder and files.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const name = `${prefix}${stamp}-${randomBytes(6).toString('hex')}.eml`;
  const file = join(dir, name);
  // A dot name in the same folder: mail clients and `ls *.eml` skip it, and rename is atomic.
  const temp = join(dir, `.${name}.tmp`);
  try {
    await writeFile(temp, message, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
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
      // In a JSON log line the text's newlines become `\n`, which terminals glue onto a URL at
      // the end of a line; `links` lists each URL as its own string so it stays clickable.
      const links = mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
      options.log.info(
        { to: mail.to, subject: mail.subject, file, links, text: mail.text },
        'mail written to the outbox (no SMTP_URL set)',
      );
    },
    async close() {},
  };
}
