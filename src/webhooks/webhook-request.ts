import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './webhook-target.js';

/** What a receiver answered: its status (null when none came) and why it failed, if it did. */
export interface ReceiverAnswer {
  status: number | null;
  /** Null when the receiver answered 2xx. */
  error: string | null;
  durationMs: number;
}

/** How much of a failed answer's body the attempt log keeps. */
const ERROR_BODY_CHARS = 200;

/** A `lookup` that gives the checked address whatever name is asked (no second resolution). */
function pinnedLookup(target: WebhookTarget): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for every address (all: true) when it may try several families.
    if ((options as { all?: boolean }).all === true) {
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

function describeNetworkError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/** The named references an error page's text most often holds (numeric ones are read too). */
const HTML_REFERENCES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function referenced(name: string): string {
  if (name[0] !== '#') return HTML_REFERENCES[name] ?? `&${name};`;
  const code =
    name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
}

/**
 * The text of an HTML error page (a web server's or framework's 404 or 501), not its markup:
 * the log shows "Error response Error code: 501 Message: Unsupported method" rather than
 * "<!DOCTYPE HTML> <html lang=…". Only for showing; nothing here is rendered as HTML.
 */
function textOfHtml(body: string): string {
  return body
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-z]+);/g, (_, name: string) =>
      referenced(name),
    );
}

/** One line of a receiver's body, for the log: printable characters only, cut short. */
function bodyExcerpt(bytes: Buffer): string {
  const raw = bytes.toString('utf8');
  const shown = /^\s*</.test(raw) ? textOfHtml(raw) : raw;
  const text = Array.from(shown, (c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' ? ' ' : c))
    .join('')
    .replace(/ +/g, ' ')
    .trim();
  return text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}…` : text;
}

/**
 * POSTs `body` to the checked target with `headers`: a connection of its own to the checked
 * address (no keep-alive pool, so no other request's address is reused), no redirect followed
 * (a 3xx is a failure like any answer but 2xx), the whole exchange within `timeoutMs`.
 */
export function postToReceiver(
  target: WebhookTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<ReceiverAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const bytes = Buffer.from(body, 'utf8');
  const options: RequestOptions = {
    method: 'POST',
    agent: false,
    lookup: pinnedLookup(target),
    headers: {
      ...headers,
      'Content-Length': String(bytes.length),
      Connection: 'close',
    },
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    // Set once the status line is in: a body that then stalls does not undo the answer.
    let answered: (() => void) | null = null;
    const finish = (answer: Omit<ReceiverAnswer, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, durationMs: elapsed() });
    };
    const request = send(target.url, options, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      const done = () => {
        response.destroy();
        const excerpt = ok ? '' : bodyExcerpt(Buffer.concat(kept));
        finish({
          status,
          error: ok
            ? null
            : `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}${excerpt === '' ? '' : `: ${excerpt}`}`,
        });
      };
      answered = done;
      response.on('data', (chunk: Buffer) => {
        if (keptBytes < 1024) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        if (keptBytes >= 1024) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    const timer = setTimeout(() => {
      if (answered !== null) {
        answered();
        return;
      }
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s (timed out)` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish({ status: null, error: describeNetworkError(error) }));
    request.end(bytes);
  });
}
