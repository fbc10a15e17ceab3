import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataVersions } from '../storage/store.js';
import type { Authorize, Verdict } from './authorize.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The data versions read for this request by the API guard (null before it ran). */
    dataVersions: DataVersions | null;
    /** The account of the request's key, once the API guard recognised it (for the log). */
    accountId: string | null;
  }
}

declare module 'node:http' {
  interface IncomingMessage {
    /**
     * The one channel between the fast lane and Fastify: set only by the fast lane, on a request
     * it authorised but passes on to Fastify (a refusal, or an answer it cannot send from the
     * caches). The guard's hook then takes this verdict instead of authorising again, so a
     * request is looked up and counted once whichever path answers it.
     */
    onairVerdict?: Promise<Verdict>;
  }
}

/** Passes `req` on to Fastify with the verdict the fast lane reached for it (see onairVerdict). */
export function passOnWithVerdict(req: IncomingMessage, verdict: Promise<Verdict>): void {
  req.onairVerdict = verdict;
}

/**
 * The data versions the guard read for this request: the routes answer from caches built at
 * that catalogue version, so one request sees one state of the data.
 */
export function versionsOf(request: FastifyRequest): DataVersions {
  if (request.dataVersions === null) throw new Error('the API guard has not run for this request');
  return request.dataVersions;
}

/**
 * The Fastify `onRequest` hook of the `/api/v1` routes: applies the request's verdict (from the
 * fast lane, or reached here), refusing with its error or letting the route answer with the
 * data versions it read. Register with `app.decorateRequest('dataVersions', null)` and
 * `app.decorateRequest('accountId', null)`.
 */
export function apiGuard(
  authorize: Authorize,
  clientAddress: (req: IncomingMessage) => string | undefined,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const verdict = await (request.raw.onairVerdict ??
      authorize(request.headers, () => clientAddress(request.raw)));
    for (const [name, value] of verdict.headers) reply.header(name, value);
    request.accountId = verdict.admitted ? verdict.owner.account.id : (verdict.accountId ?? null);
    if (!verdict.admitted) throw verdict.error;
    request.dataVersions = verdict.versions;
  };
}
