/**
 * An input that cannot be ingested: malformed XML, bytes that are not in the declared encoding,
 * a truncated file or gzip stream, an unreadable file or a failed download. The message names
 * the problem and, when the problem is inside the document, the line (`line 1234: …`).
 */
export class IngestError extends Error {
  override name = 'IngestError';

  constructor(
    message: string,
    /** Line of the document where the problem was found, or null when it is not in the text. */
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

/** The message of an error and of its cause: "fetch failed (connect ECONNREFUSED …)". */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
