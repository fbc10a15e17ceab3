import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.js';

/** What the page routes share: reading form and query fields, sending a page. */

/** A form or query field as one string ('' when absent or given more than once). */
export function formField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A field that may repeat (checkboxes), as a list in the order given. */
export function formFields(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function sendPage(reply: FastifyReply, status: number, body: SafeHtml): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value);
}
