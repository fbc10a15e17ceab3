import type { PackedRows } from '../packed-rows.js';
import type { ErrorInfo } from '../thread-errors.js';
import type { CopyShape } from './copy-text.js';

// The messages between an ingest session's COPY encoder (copy-encoder.ts) and its thread
// (copy-encoder-thread.ts), both sides typed by this one file.

/** What the thread is started with (its `workerData`). */
export type EncoderInput = CopyShape;

export type EncoderRequest = { op: 'encode'; packed: PackedRows } | { op: 'close' };

/** `encoded` answers each `encode` in turn: the rows' COPY text as UTF-8, or why not. */
export type EncoderReply =
  | { op: 'encoded'; bytes: Uint8Array; error: null }
  | { op: 'encoded'; bytes: null; error: ErrorInfo }
  | { op: 'closed' };
