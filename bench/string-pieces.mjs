#!/usr/bin/env node
// Strings past V8's largest regular object: `node bench/string-pieces.mjs [FILE]`.
//
// The ingest hands text to other threads and to its parser as strings. A string longer than
// V8's largest regular heap object (128 KiB: 128 Ki characters of one byte, 64 Ki of two) is
// made in the large-object space, each in a fresh mapping of memory, and this costs far more
// per character than the copy itself. Measured here, in one process:
//
// - a batch's text values (512 programmes of about 10 values, ~50 characters each, sliced from
//   a larger string as the parser's are) joined into one string and passed through a
//   MessageChannel, as the hand-over to another thread did, against the same values joined in pieces of a bounded
//   length (packed-rows.ts, PIECE_CHARS);
// - FILE (default: the corpus's largest guide, gunzipped) decoded from UTF-8 in chunks of
//   several sizes, as the ingest's reader does (byte-source.ts, FILE_CHUNK_BYTES).
//
// Prints milliseconds per case; compare the rows of one run (the machine's speed varies).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BATCHES = 575; // 294,510 programmes of the 92 MB bench guide in batches of 512
const VALUES = 512 * 10;

function batchValues(twoByte) {
  const source = 'x'.repeat(300_000) + (twoByte ? 'é' : '');
  return Array.from({ length: 20 }, (_, b) =>
    Array.from({ length: VALUES }, (_, i) => {
      const length = 10 + ((i * 37 + b) % 80);
      const at = (i * 131 + b) % 200_000;
      return source.slice(at, at + length);
    }),
  );
}

function joinInPieces(values, pieceChars) {
  const pieces = [];
  let start = 0;
  let chars = 0;
  for (let i = 0; i < values.length; i++) {
    chars += values[i].length;
    if (chars >= pieceChars) {
      pieces.push(values.slice(start, i + 1).join(''));
      start = i + 1;
      chars = 0;
    }
  }
  if (start < values.length) pieces.push(values.slice(start).join(''));
  return pieces;
}

const ms = (since) => (Number(process.hrtime.bigint() - since) / 1e6).toFixed(0);

// A message's copy, as a hand-over to another thread makes it (serialised, then read back).
const { port1, port2 } = new MessageChannel();
const handOver = (value) => {
  port1.postMessage(value);
  return receiveMessageOnPort(port2).message;
};

for (const twoByte of [false, true]) {
  const batches = batchValues(twoByte);
  for (const pieceChars of [Number.POSITIVE_INFINITY, 64 * 1024, 32 * 1024, 16 * 1024]) {
    const started = process.hrtime.bigint();
    let characters = 0;
    for (let b = 0; b < BATCHES; b++) {
      const pieces = handOver(joinInPieces(batches[b % batches.length], pieceChars));
      for (const piece of pieces) characters += piece.length;
    }
    const label = Number.isFinite(pieceChars) ? `pieces of ${pieceChars / 1024} Ki` : 'one string';
    console.log(
      `join and hand over, ${twoByte ? 'two' : 'one'}-byte text, ${label}: ${ms(started)} ms` +
        ` (${(characters / 1e6).toFixed(1)} M characters)`,
    );
  }
}

const file = process.argv[2];
const bytes = file
  ? readFileSync(file)
  : gunzipSync(readFileSync(join(ROOT, 'test/fixtures/xmltv/corpus/jiotv_in_epg.xml.gz')));
for (const chunk of [256 * 1024, 128 * 1024, 64 * 1024, 32 * 1024, 16 * 1024]) {
  const started = process.hrtime.bigint();
  let characters = 0;
  for (let at = 0; at < bytes.length; at += chunk) {
    characters += bytes.toString('utf8', at, Math.min(bytes.length, at + chunk)).length;
  }
  console.log(
    `decode ${(bytes.length / 1e6).toFixed(1)} MB in ${chunk / 1024} KiB chunks: ${ms(started)} ms` +
      ` (${(characters / 1e6).toFixed(1)} M characters)`,
  );
}
port1.close();
