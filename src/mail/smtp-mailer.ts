import nodemailer from 'nodemailer';
import type { Mailer } from './types.js';

/**
 * nodemailer's defaults (2 minutes to connect, 10 minutes of socket silence) would hold a
 * sign-in request that long when the SMTP server is dead. Query parameters of SMTP_URL (e.g.
 * `?greetingTimeout=20000`) still override these: nodemailer lets the URL win.
 */
const TIMEOUTS = {
  dnsTimeout: 10_000,
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 10_000,
} as const;

/** Sends through the SMTP server of `url` (smtp:// or smtps://, credentials in the URL). */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  // Not pooled: a connection per mail, so nothing stays open between the rare sign-in mails.
  const transport = nodemailer.createTransport({ url: options.url, ...TIMEOUTS });
  return {
    async send(mail) {
      await transport.sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === undefined ? {} : { html: mail.html }),
      });
    },
    async close() {
      transport.close();
    },
  };
}
