import type { Config } from '../config.js';
import { createOutboxMailer, writeToOutbox } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';
import type { MailLog, Mailer } from './types.js';

function errorFields(error: unknown): { error: string; code?: string } {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' ? { error: error.message, code } : { error: error.message };
}

/**
 * SMTP when SMTP_URL is set, else the outbox. A mail SMTP refuses is not lost: the error is
 * logged (without the body, which holds a sign-in link) and the mail is kept in the outbox as
 * `failed-….eml`; `send` still rejects so the caller knows.
 */
export function createMailer(
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'outboxDir'>,
  log: MailLog,
): Mailer {
  if (config.smtpUrl === null) {
    return createOutboxMailer({ dir: config.outboxDir, from: config.mailFrom, log });
  }
  const smtp = createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom });
  return {
    async send(mail) {
      try {
        await smtp.send(mail);
      } catch (error) {
        let keptIn: string | null = null;
        let keepError: string | undefined;
        try {
          keptIn = (await writeToOutbox(config.outboxDir, config.mailFrom, mail, 'failed-')).eml;
        } catch (writeError) {
          keepError = errorFields(writeError).error;
        }
        // Recipient, subject and the reason only: the body holds a working sign-in link.
        log.error(
          {
            to: mail.to,
            subject: mail.subject,
            ...errorFields(error),
            keptIn,
            ...(keepError === undefined ? {} : { keepError }),
          },
          keptIn === null
            ? 'SMTP did not take the mail, and keeping it in the outbox failed too'
            : 'SMTP did not take the mail; kept in the outbox',
        );
        throw error;
      }
    },
    close: () => smtp.close(),
  };
}
