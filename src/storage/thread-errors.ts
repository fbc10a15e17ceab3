// How an error crosses from a worker thread (SQLite staging and search, PostgreSQL COPY
// encoding) to the thread that asked.

/** An error as it crosses threads: its message, and its SQLite code and name when it has them. */
export interface ErrorInfo {
  message: string;
  code?: string;
  name?: string;
}

/** What crosses of an error thrown in a worker thread. */
export function errorInfo(error: unknown): ErrorInfo {
  const e = error as { message?: unknown; code?: unknown; name?: unknown } | null;
  return {
    message: String(e?.message ?? error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.name === 'string' ? { name: e.name } : {}),
  };
}

/** The asking side of errorInfo: an Error with the same message, name and code. */
export function errorFromInfo(info: ErrorInfo): Error {
  const error = new Error(info.message) as Error & { code?: string };
  if (info.name !== undefined) error.name = info.name;
  if (info.code !== undefined) error.code = info.code;
  return error;
}
