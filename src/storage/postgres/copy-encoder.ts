import { Worker } from 'node:worker_threads';
import type { PackedRows } from '../packed-rows.js';
import { errorFromInfo } from '../thread-errors.js';
import type { EncoderInput, EncoderReply, EncoderRequest } from './copy-encoder-protocol.js';
import type { CopyShape } from './copy-text.js';

/**
 * The encoder thread's entry file, beside this module: `.js` once built; under Vitest the `.ts`
 * source (test/helpers/typescript-in-worker-threads.cjs).
 */
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./copy-encoder-thread.ts', import.meta.url)
  : new URL('./copy-encoder-thread.js', import.meta.url);

/** Turns batches of packed rows into COPY text, in a thread of its own. */
export interface CopyEncoder {
  /** The rows' COPY text as UTF-8; batches are answered in the order they were given. */
  encode(packed: PackedRows): Promise<Buffer>;
  /** Stops the thread (started with the first batch); batches not answered yet fail. */
  close(): Promise<void>;
}

/**
 * A COPY encoder whose work (each programme's id hashed and search text made, every value
 * escaped, the text encoded) runs beside the parser rather than on its thread, as SQLite's
 * staging thread does the same (ingest-merge/made-values.ts):
 * on the parser's thread it was a quarter of the time the programmes' COPY held the connection
 * (`node --cpu-prof bench/ingest.mjs --child postgres FILE`, bench/INGEST.md).
 */
export function createCopyEncoder(shape: CopyShape): CopyEncoder {
  let worker: Worker | null = null;
  let failure: Error | null = null;
  const waiting: { resolve(bytes: Buffer): void; reject(error: Error): void }[] = [];
  let closed: (() => void) | null = null;
  /** Set by `close`: the thread's exit is then expected, whichever comes first of it and `closed`. */
  let closing = false;
  const closedError = () => new Error('the COPY encoder is closed');

  const failAll = (error: Error) => {
    failure ??= error;
    for (const waiter of waiting.splice(0)) waiter.reject(failure);
  };
  const start = (): Worker => {
    const input: EncoderInput = shape;
    const started = new Worker(WORKER_ENTRY, {
      workerData: input,
      // Its garbage is a batch's strings, gone once answered: a small young generation keeps
      // the thread's memory small (the 92 MB guide's ingest peaked at 175–181 MB against
      // 187–195 with V8's default, as fast: `node bench/ingest.mjs --child postgres FILE`).
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    started.on('message', (reply: EncoderReply) => {
      if (reply.op === 'closed') {
        closed?.();
        return;
      }
      const waiter = waiting.shift();
      if (reply.error === null) {
        waiter?.resolve(
          Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.length),
        );
      } else {
        waiter?.reject(errorFromInfo(reply.error));
      }
    });
    started.on('error', (error: Error) => failAll(error));
    started.on('exit', () => {
      failAll(closing ? closedError() : new Error('the COPY encoder thread stopped'));
      closed?.();
    });
    return started;
  };

  return {
    encode(packed) {
      if (failure !== null) return Promise.reject(failure);
      worker ??= start();
      const request: EncoderRequest = { op: 'encode', packed };
      const sent = worker;
      return new Promise<Buffer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        sent.postMessage(request, [
          packed.textLengths.buffer as ArrayBuffer,
          packed.numbers.buffer as ArrayBuffer,
        ]);
      });
    },
    async close() {
      const running = worker;
      if (running === null) return;
      worker = null;
      closing = true;
      if (failure === null) {
        await new Promise<void>((resolve) => {
          closed = resolve;
          running.postMessage({ op: 'close' } satisfies EncoderRequest);
        });
      }
      failAll(closedError());
      await running.terminate();
    },
  };
}
