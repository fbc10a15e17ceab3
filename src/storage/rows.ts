import type {
  Account,
  ApiKey,
  AuditActor,
  AuditEvent,
  Channel,
  DuplicateSample,
  Programme,
} from './types.js';

/**
 * Rows as both engines return them, and their mapping to the Store's types. SQLite has no
 * boolean type (0/1), PostgreSQL does; the mappers accept either.
 */

export interface AccountRow {
  id: string;
  email: string;
  verified_at: number | null;
  access_until: number | null;
  rate_limit: number | null;
  disabled: number | boolean;
  created_at: number;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  last_four: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface AuditRow {
  id: string;
  account_id: string;
  at: number;
  actor: string;
  action: string;
  /** JSON text on SQLite, already parsed on PostgreSQL (JSONB). */
  details: string | Record<string, unknown>;
}

export interface ChannelRow {
  id: string;
  name: string;
  icon: string;
  country: string;
  needs_review: number | boolean;
}

export interface ProgrammeRow {
  id: string;
  start: string;
  stop: string;
  title: string;
  description: string;
  category: string;
  source_file_id: string;
  needs_review: number | boolean;
  updated_at: number;
}

export const ACCOUNT_COLUMNS =
  'id, email, verified_at, access_until, rate_limit, disabled, created_at';
export const KEY_COLUMNS =
  'id, account_id, name, prefix, last_four, created_at, last_used_at, revoked_at';
export const CHANNEL_COLUMNS = 'id, name, icon, country, needs_review';
export const PROGRAMME_COLUMNS =
  'id, start, stop, title, description, category, source_file_id, needs_review, updated_at';

/** E-mail addresses are matched case-insensitively; the address is kept as given. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    verifiedAt: row.verified_at,
    accessUntil: row.access_until,
    rateLimit: row.rate_limit,
    disabled: Boolean(row.disabled),
    createdAt: row.created_at,
  };
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    lastFour: row.last_four,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    at: row.at,
    actor: row.actor as AuditActor,
    action: row.action,
    details:
      typeof row.details === 'string'
        ? (JSON.parse(row.details) as Record<string, unknown>)
        : row.details,
  };
}

export function toChannel(row: ChannelRow): Channel {
  return {
    id: row.id,
    name: row.name,
    icon: row.icon,
    country: row.country,
    needsReview: Boolean(row.needs_review),
  };
}

export function toProgramme(row: ProgrammeRow): Programme {
  return {
    id: row.id,
    start: row.start,
    stop: row.stop,
    title: row.title,
    desc: row.description,
    category: row.category,
    sourceFileId: row.source_file_id,
    needsReview: Boolean(row.needs_review),
    updatedAt: String(row.updated_at),
  };
}

/** A duplicate-slot sample row of an ingest's staging analysis (counts may be bigint text). */
export function toDuplicateSample(row: Record<string, unknown>): DuplicateSample {
  return {
    channelId: String(row['channel_id']),
    start: String(row['start']),
    firstLine: Number(row['first_line']),
    keptLine: Number(row['kept_line']),
    exactDuplicates: Number(row['exact']),
    conflictingDuplicates: Number(row['conflicting']),
  };
}
