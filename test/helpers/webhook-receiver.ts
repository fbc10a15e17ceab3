import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook request as the receiver got it: the raw body, untouched, and the headers. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How the receiver answers the next request: a status (with a text body of its own), a status
 * with an HTML page, or never ('hang').
 */
export type ReceiverAnswer = number | { status: number; html: string } | 'hang';

/** A local `node:http` receiver of webhooks, answering as the test says. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Answers for the next requests, in order; once used up, `fallback`. */
  answers: ReceiverAnswer[];
  fallback: ReceiverAnswer;
  /** Resolves when `count` requests have arrived (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const hanging = new Set<ServerResponse>();
  const waiters: { count: number; resolve(): void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    answers: [],
    fallback: 200,
    waitFor(count, ms = 30_000) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`receiver got ${receiver.received.length} requests, not ${count}`)),
          ms,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      for (const waiter of [...waiters]) {
        if (receiver.received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      const answer = receiver.answers.shift() ?? receiver.fallback;
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      if (typeof answer === 'object') {
        response.writeHead(answer.status, { 'content-type': 'text/html' });
        response.end(answer.html);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' });
      response.end(answer >= 200 && answer < 300 ? 'ok' : `receiver says ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

const xmltvTime = (ms: number) =>
  `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;

/**
 * A guide of channels, each with `count` half-hour programmes from `startMs`, titled
 * `<title> <n>`: the same counts with another title change every programme.
 */
export function webhookGuide(
  channels: { id: string; name: string; count: number; title: string }[],
  startMs: number,
): Buffer {
  const parts = ['<tv>'];
  for (const channel of channels) {
    parts.push(
      `<channel id="${channel.id}"><display-name>${channel.name}</display-name></channel>`,
    );
  }
  for (const channel of channels) {
    for (let i = 0; i < channel.count; i++) {
      const start = startMs + i * 1_800_000;
      parts.push(
        `<programme start="${xmltvTime(start)}" stop="${xmltvTime(start + 1_800_000)}" channel="${channel.id}"><title>${channel.title} ${i}</title></programme>`,
      );
    }
  }
  parts.push('</tv>');
  return Buffer.from(parts.join('\n'));
}
