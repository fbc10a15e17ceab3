import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server in the test process that keeps every message it receives. */
export interface SmtpSink {
  /** `SMTP_URL` for it: plain SMTP on loopback, STARTTLS not offered. */
  url: string;
  messages: ParsedMail[];
  /** The next mail to `to` not returned before; rejects after `timeoutMs`. */
  waitForMail(to: string, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

function recipients(mail: ParsedMail): string[] {
  const to = mail.to === undefined ? [] : Array.isArray(mail.to) ? mail.to : [mail.to];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const returned = new Set<ParsedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitForMail(to, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = messages.find(
          (m) => !returned.has(m) && recipients(m).includes(to.toLowerCase()),
        );
        if (mail !== undefined) {
          returned.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
