import type { Config } from '../config.js';
import { createOutboxMailer, writeToOutbox } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';
import type { MailLog, Mailer } from './types.js';

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
        let kept: string | null = null;
        try {
          kept = await writeToOutbox(config.outboxDir, config.mailFrom, mail, 'failed-');
        } catch (writeError) {
          log.error({ err: writeError }, 'keeping the failed mail in the outbox failed too');
        }
        log.error(
          { to: mail.to, subject: mail.subject, keptIn: kept, error: (error as Error).message },
          'SMTP did not take the mail',
        );
        throw error;
      }
    },
    close: () => smtp.close(),
  };
}
