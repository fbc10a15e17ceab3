import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { describeError } from '../catalogue/ingest/ingest-error.js';
import {
  DownloadError,
  isHttpLocation,
  requestGuide,
  tooLarge,
  withinSizeLimit,
  withRetries,
  type DownloadLimits,
  type Validators,
} from '../catalogue/ingest/guide-download.js';

/** The result of a download: the guide had not changed, or it is now in the target file. */
export type Download =
  | { kind: 'not-modified'; status: number | null; attempts: number }
  | {
      kind: 'fetched';
      status: number | null;
      bytes: number;
      sha256: string;
      etag: string | null;
      lastModified: string | null;
      attempts: number;
    };

/** Copies chunks to `target`, hashing and counting them. */
async function save(
  chunks: AsyncIterable<Buffer>,
  target: string,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    chunks,
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        hash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(target),
  );
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * A local file as a source: its size and modification time stand for an ETag, so an untouched
 * file counts as not modified; otherwise it is copied (a snapshot the ingest reads).
 */
async function copyFile(
  path: string,
  validators: Validators,
  target: string,
  limits: DownloadLimits,
): Promise<Download> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new DownloadError(
      code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${describeError(error)}`,
      { retryable: true },
    );
  }
  if (!info.isFile()) throw new DownloadError(`${path} is not a file`, { retryable: false });
  const etag = `"${info.size}-${Math.trunc(info.mtimeMs)}"`;
  const lastModified = new Date(info.mtimeMs).toUTCString();
  if (validators.etag === etag) return { kind: 'not-modified', status: null, attempts: 1 };
  if (info.size > limits.maxBytes) throw tooLarge(limits.maxBytes);
  try {
    // The limit also holds for a file that grows while it is copied.
    const saved = await save(withinSizeLimit(createReadStream(path), limits.maxBytes), target);
    return { kind: 'fetched', status: null, ...saved, etag, lastModified, attempts: 1 };
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(`cannot read ${path}: ${describeError(error)}`, { retryable: true });
  }
}

/**
 * Downloads a guide (http(s) URL or local file) into `target`, conditionally: with the
 * validators of the content last ingested, an unchanged guide answers 304 and nothing is
 * downloaded. Timeouts (`timeoutMs` for the whole download, retries included), a size limit,
 * and retries with doubling waits for errors that may pass
 * (network, 5xx, 429, 408, a body cut short: the file is written again from the start). Throws
 * DownloadError; `signal` stops it at once.
 */
export async function downloadGuide(
  location: string,
  validators: Validators,
  target: string,
  limits: DownloadLimits,
  signal?: AbortSignal,
): Promise<Download> {
  if (!isHttpLocation(location)) return copyFile(location, validators, target, limits);
  // SOURCE_TIMEOUT_SECONDS bounds the whole download, its tries and the waits between them,
  // as for `bin/onair ingest <url>` (byte-source.ts): per try, a source that stalls held its
  // refresh three times as long.
  const deadlineMs = Date.now() + limits.timeoutMs;
  return withRetries(
    limits,
    async (attempt) => {
      const answer = await requestGuide(location, limits, { validators, signal, deadlineMs });
      try {
        if (answer.status === 304) return { kind: 'not-modified', status: 304, attempts: attempt };
        const saved = await save(answer.chunks, target);
        return {
          kind: 'fetched',
          status: answer.status,
          ...saved,
          etag: answer.etag,
          lastModified: answer.lastModified,
          attempts: attempt,
        };
      } finally {
        await answer.close();
      }
    },
    { signal, deadlineMs },
  );
}
