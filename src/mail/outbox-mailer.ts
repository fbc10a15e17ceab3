import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { composeMessage } from './mail-message.js';
import type { MailLog, Mailer, OutgoingMail } from './types.js';

/** A mail in the outbox: the message, and its text beside it for a person to open. */
export interface OutboxMail {
  eml: string;
  text: string;
}

/**
 * Writes a mail as `<prefix><ISO time>-<random>.eml` into `dir` (created if missing), and its
 * text as `….txt` beside it: UTF-8, lines as written, so a link stands whole on its line, ready
 * to copy (in the `.eml`, quoted-printable wraps it). Names sort by time and never collide; the
 * `.eml` appears only when both are complete.
 */
export async function writeToOutbox(
  dir: string,
  from: string,
  mail: OutgoingMail,
  prefix = '',
): Promise<OutboxMail> {
  const message = await composeMessage(from, mail);
  // Sign-in links are as good as a password for 15 minutes: owner-only folder and files.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const name = `${prefix}${stamp}-${randomBytes(6).toString('hex')}`;
  const written: OutboxMail = { eml: join(dir, `${name}.eml`), text: join(dir, `${name}.txt`) };
  await writeWhole(dir, written.text, mail.text);
  await writeWhole(dir, written.eml, message);
  return written;
}

/** Writes `file` under a dot name in the same folder, then renames it: it appears complete. */
async function writeWhole(dir: string, file: string, content: string | Buffer): Promise<void> {
  const temp = join(dir, `.${basename(file)}.tmp`);
  try {
    await writeFile(temp, content, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * The embedded default without SMTP: every mail is written to the outbox folder, and the log
 * says which file to open; never the mail's text, whose links are as good as a password.
 */
export function createOutboxMailer(options: { dir: string; from: string; log: MailLog }): Mailer {
  return {
    async send(mail) {
      const written = await writeToOutbox(options.dir, options.from, mail);
      options.log.info(
        { to: mail.to, subject: mail.subject, file: written.text },
        'mail written to the outbox (no SMTP_URL set): open the file for its link',
      );
    },
    async close() {},
  };
}
