import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server in the test process that keeps every message it receives. */
export interface SmtpSink {
  /**
   * `SMTP_URL` for it: `smtp://127.0.0.1:PORT`, nothing else needed. The sink offers neither
   * STARTTLS (nodemailer would upgrade and reject smtp-server's self-signed certificate) nor
   * AUTH (so a URL with credentials works too: nodemailer skips AUTH when it is not offered).
   */
  url: string;
  /** Every message received, in order of arrival. */
  messages: ParsedMail[];
  /** The first mail to `to` (envelope or To/Cc header) not returned before; rejects after `timeoutMs`. */
  waitForMail(to: string, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

interface Waiter {
  to: string;
  resolve: (mail: ParsedMail) => void;
  reject: (error: Error) => void;
}

function headerRecipients(mail: ParsedMail): string[] {
  return [mail.to, mail.cc]
    .flatMap((field) => (field === undefined ? [] : Array.isArray(field) ? field : [field]))
    .flatMap((address) => address.value.map((v) => v.address ?? ''));
}

/**
 * Starts a sink on 127.0.0.1 at `port` (a free one by default); close it in
 * `afterEach`/`afterAll`.
 */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  // Lower-cased envelope and header recipients of each message.
  const recipientsOf = new Map<ParsedMail, Set<string>>();
  const returned = new Set<ParsedMail>();
  const waiters = new Set<Waiter>();

  function take(to: string): ParsedMail | undefined {
    const mail = messages.find((m) => !returned.has(m) && recipientsOf.get(m)?.has(to));
    if (mail !== undefined) returned.add(mail);
    return mail;
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A client still connected at close() is cut off after this, not smtp-server's 30 s.
    closeTimeout: 500,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const envelope = session.envelope.rcptTo.map((a) => a.address);
          recipientsOf.set(
            mail,
            new Set([...envelope, ...headerRecipients(mail)].map((a) => a.toLowerCase())),
          );
          messages.push(mail);
          for (const waiter of waiters) {
            const found = take(waiter.to);
            if (found !== undefined) {
              waiters.delete(waiter);
              waiter.resolve(found);
            }
          }
          // Answered only now, so the mail is in `messages` by the time sendMail resolves.
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('SMTP sink has no port');

  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    waitForMail(to, timeoutMs = 5_000) {
      const wanted = to.toLowerCase();
      const ready = take(wanted);
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise<ParsedMail>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = messages.map((m) => [...(recipientsOf.get(m) ?? [])].join(',')).join('; ');
          reject(
            new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${seen || 'none'})`),
          );
        }, timeoutMs);
        const waiter: Waiter = {
          to: wanted,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiters.add(waiter);
      });
    },
    close() {
      for (const waiter of waiters)
        waiter.reject(new Error(`SMTP sink closed; no mail to ${waiter.to}`));
      waiters.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
