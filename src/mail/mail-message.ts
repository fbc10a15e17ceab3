import nodemailer from 'nodemailer';
import type { OutgoingMail } from './types.js';

// nodemailer's stream transport builds the RFC 822 message (headers, encoding, multipart)
// without sending it; the outbox stores exactly what SMTP would have carried.
const composer = nodemailer.createTransport({
  streamTransport: true,
  buffer: true,
  newline: 'unix',
});

/** The whole message as bytes, as an `.eml` file holds it. */
export async function composeMessage(from: string, mail: OutgoingMail): Promise<Buffer> {
  const info = await composer.sendMail({ from, ...mail });
  return info.message as Buffer;
}
