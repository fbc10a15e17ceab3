import nodemailer from 'nodemailer';
import type { Mailer } from './types.js';

/** Sends through the SMTP server of `url` (smtp:// or smtps://, credentials in the URL). */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport({
    url: options.url,
    // A dead SMTP server must not hold a sign-in for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
    async close() {
      transport.close();
    },
  };
}
