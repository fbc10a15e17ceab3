import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { errorInfo } from '../thread-errors.js';
import type { EncoderInput, EncoderReply, EncoderRequest } from './copy-encoder-protocol.js';
import { copyLines } from './copy-text.js';
import { madeValuesCompletion } from '../ingest-merge/made-values.js';

/**
 * The COPY encoder's thread, started by createCopyEncoder (copy-encoder.ts): it turns each
 * batch of packed programmes into COPY text, with the values it makes (their ids hashed, their
 * search texts: made-values.ts), and sends it back as UTF-8 bytes, moved rather than copied.
 */
function serveEncoding(port: MessagePort, shape: EncoderInput): void {
  const utf8 = new TextEncoder();
  const completion = madeValuesCompletion(shape.made);
  /** The pieces' UTF-8 one after the other (at most three bytes a UTF-16 unit). */
  const encode = (pieces: readonly string[]): Uint8Array => {
    let units = 0;
    for (const piece of pieces) units += piece.length;
    const bytes = new Uint8Array(units * 3);
    let written = 0;
    for (const piece of pieces) written += utf8.encodeInto(piece, bytes.subarray(written)).written;
    return bytes.subarray(0, written);
  };
  port.on('message', (m: EncoderRequest) => {
    if (m.op === 'encode') {
      let reply: EncoderReply;
      try {
        reply = {
          op: 'encoded',
          bytes: encode(copyLines(m.packed, shape, completion)),
          error: null,
        };
      } catch (error) {
        reply = { op: 'encoded', bytes: null, error: errorInfo(error) };
      }
      port.postMessage(reply, reply.bytes === null ? [] : [reply.bytes.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ op: 'closed' } satisfies EncoderReply);
      port.close();
    }
  });
}

if (parentPort === null) throw new Error('copy-encoder-thread runs as a worker thread only');
serveEncoding(parentPort, workerData as EncoderInput);
