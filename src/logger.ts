import { writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdSerializers, stdTimeFunctions, symbols, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';
import type { LogFormat } from './config.js';

/** An API key anywhere in a URL, its `_` possibly percent-encoded. */
const API_KEY_IN_URL = /onair(?:_|%5f)[0-9a-z]{38}/gi;

/**
 * A guide feed's token: the path segment after `/feeds/` (its URL is its only credential); not
 * after `/account/feeds/`, whose pages name a feed by its id (or `new`), no secret.
 */
const FEED_TOKEN_IN_URL = /(?<!\/account)(\/feeds\/)[^/?#]+/gi;

/** What a URL holding any of the secrets below must contain. */
const MAY_HOLD_SECRET = /token=|url=|onair|\/feeds\//i;

/**
 * Sign-in tokens travel in the query of e-mailed links, and a customer may paste an API key
 * into a URL by mistake (the query string is ignored for keys, but the URL is logged): neither
 * reaches the log. Nor does a `url` parameter: the webhook form's channel search sends the form
 * by GET, with the webhook's URL, whose query may hold the receiver's own secret.
 */
export function redactUrl(url: string): string {
  // Most URLs hold none of them: one scan for what each replacement needs, instead of three
  // (0.37 → 0.04 µs a URL in a loop; the line is written for every request).
  if (!MAY_HOLD_SECRET.test(url)) return url;
  return url
    .replace(/([?&](?:token|url)=)[^&#]*/gi, '$1[redacted]')
    .replace(API_KEY_IN_URL, 'onair_[redacted]')
    .replace(FEED_TOKEN_IN_URL, '$1[redacted]');
}

/** The message of the one line logged per answered request (see http/request-log.ts). */
export const REQUEST_COMPLETED = 'request completed';

/**
 * A writer of ready-made lines into `logger`'s destination, as pino itself writes them: level,
 * time and the logger's bindings first, then `fields` (JSON members, each after a comma), then
 * the message. For the one line written per request (http/request-log.ts), whose generic
 * serialisation cost more than its formatting by hand; `src/logger.test.ts` checks the two lines
 * agree. It uses pino's exported symbols for the parts of a line pino keeps ready.
 */
export function lineWriterOf(
  logger: Logger,
): (level: number, fields: string, message: string) => void {
  const parts = logger as unknown as {
    [symbols.lsCacheSym]: Record<number, string>;
    [symbols.timeSym]: () => string;
    [symbols.chindingsSym]: string;
    [symbols.endSym]: string;
    [symbols.streamSym]: { write(line: string): void };
  };
  // pino's default time member, `,"time":<epoch ms>`, made once a millisecond rather than once a
  // line (a number this large is formatted by V8's runtime, not from its cache of small ones).
  const time = parts[symbols.timeSym];
  let lastMs = Number.NaN;
  let lastTime = '';
  const timeMember =
    time === stdTimeFunctions.epochTime
      ? () => {
          const now = Date.now();
          if (now !== lastMs) {
            lastMs = now;
            lastTime = time();
          }
          return lastTime;
        }
      : time;
  return (level, fields, message) => {
    parts[symbols.streamSym].write(
      parts[symbols.lsCacheSym][level] +
        timeMember() +
        parts[symbols.chindingsSym] +
        fields +
        `,"msg":${JSON.stringify(message)}` +
        parts[symbols.endSym],
    );
  };
}

/** The fields of a request line, as the serializers above leave them. */
interface RequestLine {
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  reqId?: string;
}

/**
 * One short line per log line, for a person at a terminal: local time, level and message; a
 * request as `GET /url 200 1.2 ms`. It formats what pino has already serialised, so a URL is
 * as redacted here as in JSON.
 */
function prettyDestination(destination: NodeJS.WritableStream): { write(line: string): void } {
  const format = prettyFactory({
    // Colour only on a terminal that wants it (colorette honours NO_COLOR and TERM=dumb).
    colorize: isColorSupported && (destination as { isTTY?: boolean }).isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime,accountId',
    singleLine: true,
    messageFormat: (log, messageKey, _levelLabel, { colors }) => {
      const { req, res, responseTime, reqId } = log as RequestLine;
      const message = String(log[messageKey] ?? '');
      if (message === REQUEST_COMPLETED && req !== undefined && res !== undefined) {
        const status = res.statusCode ?? 0;
        const paint = status >= 500 ? colors.red : status >= 400 ? colors.yellow : colors.green;
        const ms = responseTime ?? 0;
        const time = ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
        return `${req.method ?? ''} ${req.url ?? ''} ${paint(String(status))} ${time} ms`;
      }
      // Fastify's own lines about a request (errors) keep its id, to find its request line.
      return reqId === undefined ? message : `${message} (${reqId})`;
    },
  });
  return { write: (line) => destination.write(format(line)) };
}

/** What heldLines needs of pino's asynchronous destination (sonic-boom). */
export interface LineDestination {
  write(chunk: string): unknown;
  /** Writes what it holds, synchronously (throws once it is closed). */
  flushSync(): void;
}

/** How long a line is held at most before it goes to the destination (ms). */
export const LINE_HOLD_MS = 20;
/** Held lines of this many characters or more go at once, whatever their age. */
export const MAX_HELD_CHARS = 64 * 1024;

/** The exit flushes of the destinations holding lines, run by one exit listener. */
const heldAtExit = new Set<() => void>();
let exitListener = false;

/**
 * The lines written within `holdMs` of the first one held, handed to `destination` as one
 * string (sooner when they reach `maxChars`). Each hand-over is an asynchronous write: a task
 * for libuv's thread pool, that thread woken, a write, the loop woken to hear it ended. Handed
 * over at the end of each turn, they cost about 20 µs of CPU a write on a slow guest, as much as
 * a small answer's own work when a turn answers one request (`node bench/log-hand-overs.mjs`,
 * bench/RESULTS.md); held 20 ms, a write carries a hundred lines under load, and a line reaches
 * the log at most 20 ms later. Joined here, sonic-boom measures them once (it measures the whole
 * string it holds again for every line appended to it). Every line of the logger comes through
 * here, so their order holds. At exit, what the destination holds is written, then the held
 * lines, both synchronously: handed over then, they would start an asynchronous write the exit
 * cuts short. The timer does not keep a process alive.
 */
export function heldLines(
  destination: LineDestination,
  /** The file descriptor `destination` writes. */
  fd: number,
  { holdMs = LINE_HOLD_MS, maxChars = MAX_HELD_CHARS } = {},
): { write(line: string): void } {
  let held: string[] = [];
  let heldChars = 0;
  let timer: NodeJS.Timeout | undefined;
  const take = (): string => {
    heldAtExit.delete(atExit);
    clearTimeout(timer);
    timer = undefined;
    const chunk = held.length === 1 ? (held[0] as string) : held.join('');
    held = [];
    heldChars = 0;
    return chunk;
  };
  const handOver = (): void => {
    if (held.length > 0) destination.write(take());
  };
  function atExit(): void {
    try {
      destination.flushSync();
      writeAllSync(fd, take());
    } catch {
      // The destination is closed (its reader went away): these lines are lost, as any after.
    }
  }
  if (!exitListener) {
    exitListener = true;
    process.on('exit', () => {
      for (const flush of [...heldAtExit]) flush();
    });
  }
  return {
    write(line) {
      held.push(line);
      heldChars += line.length;
      if (heldChars >= maxChars) handOver();
      else if (held.length === 1) {
        heldAtExit.add(atExit);
        timer = setTimeout(handOver, holdMs).unref();
      }
    },
  };
}

/** Writes all of `text` to `fd` now, waiting out a full pipe (a non-blocking descriptor). */
function writeAllSync(fd: number, text: string): void {
  let bytes = Buffer.from(text);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * The process logger (pino), shared by Fastify and the services: JSON lines, or with `pretty`
 * short lines for a person at a terminal. Requests are logged with method, redacted URL and
 * client address; headers (API keys, cookies) never are.
 */
export function createLogger(
  level: string,
  destination: NodeJS.WritableStream | 'stdout' = 'stdout',
  format: LogFormat = 'json',
): Logger {
  const options = {
    level,
    serializers: {
      req: (req: IncomingMessage & { ip?: string }) => ({
        method: req.method,
        url: redactUrl(req.url ?? ''),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: stdSerializers.err,
    },
  };
  // JSON to standard output (a service's log: a pipe to journald, docker, a file) is written
  // asynchronously, many lines a write (heldLines), and a slow reader never blocks the event
  // loop (process.stdout writes a pipe synchronously, a system call per line). pino flushes what
  // is left when the process exits, and stops writing (the lines are lost, the server goes on)
  // when the reader goes away.
  if (destination === 'stdout' && format === 'json') {
    return pino(options, heldLines(pino.destination({ dest: 1, sync: false }), 1));
  }
  const stream = destination === 'stdout' ? process.stdout : destination;
  // A reader of the log that goes away (a closed pipe) must not take the server down: its
  // EPIPE would otherwise be an unhandled 'error' event. The lines after it are lost.
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return pino(options, format === 'pretty' ? prettyDestination(stream) : stream);
}
