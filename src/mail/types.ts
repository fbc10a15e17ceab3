/** One e-mail the service sends (sign-in links). */
export interface OutgoingMail {
  to: string;
  subject: string;
  /** Plain-text body; always present so every mail client can read it. */
  text: string;
  /** Optional HTML alternative; its dynamic parts must already be escaped. */
  html?: string;
}

/**
 * Sends mail. Implementations: SMTP through nodemailer when SMTP_URL is set, else an outbox
 * that writes each mail to the log and to a folder. `send` rejects when the mail could not be
 * handed over; callers log that, they never lose it silently.
 */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** The part of a (pino) logger the mailers use. */
export interface MailLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
