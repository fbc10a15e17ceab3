import { connect } from 'node:net';

/** One HTTP/1.1 response as read off the wire. */
export interface RawResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` byte for byte (no client-side validation, unlike node:http or fetch) and
 * reads the first response. Rejects when no complete response arrives within `timeoutMs`:
 * for the tests, a server that does not answer hangs.
 */
export function rawRequest(port: number, request: Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error: Error | null, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== null) reject(error);
      else resolve(response as RawResponse);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const tryParse = (ended: boolean) => {
      const data = Buffer.concat(chunks);
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (ended) finish(new Error(`connection closed without a response: ${data.toString()}`));
        return;
      }
      const [statusLine = '', ...lines] = data
        .subarray(0, headEnd)
        .toString('latin1')
        .split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = data.subarray(headEnd + 4);
      const length = headers['content-length'];
      if (length !== undefined && body.length >= Number(length)) {
        finish(null, { status, headers, body: body.subarray(0, Number(length)).toString('utf8') });
      } else if (ended) {
        finish(null, { status, headers, body: body.toString('utf8') });
      }
    };
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => finish(error));
  });
}
