import type { Account, ApiKey, AuditActor, AuditEvent } from '../domain/account.js';
import type { Channel, ChannelDetails, ChannelScheduleEnd } from '../domain/channel.js';
import type { DuplicateSample } from './catalogue-writer.js';
import {
  richProgrammeOf,
  type Programme,
  type RichProgramme,
  type TimedProgramme,
} from '../domain/programme.js';
import type { RefreshOutcome, Source } from '../domain/source.js';

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

export interface ChannelDetailsRow extends ChannelRow {
  xmltv_id: string;
  name_fixed: number | boolean;
  country_fixed: number | boolean;
  reviewed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ChannelScheduleEndRow extends ChannelDetailsRow {
  programmes: number | string;
  latest_end_ms: number | null;
}

export interface SourceRow {
  id: string;
  location: string;
  country: string;
  every_ms: number;
  assume_offset_minutes: number;
  created_at: number;
  next_run_at: number;
  failures: number;
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_ingest_at: number | null;
  last_status: number | null;
  last_outcome: string | null;
  last_error: string | null;
  etag: string | null;
  last_modified: string | null;
  content_sha256: string | null;
  source_file_id: string | null;
  channels: number | null;
  programmes: number | null;
  latest_end_ms: number | null;
  lease_holder: string | null;
  lease_until: number | null;
  warned_flags: string | null;
  warned_at: number | null;
}

export const ACCOUNT_COLUMNS =
  'id, email, verified_at, access_until, rate_limit, disabled, created_at';
export const KEY_COLUMNS =
  'id, account_id, name, prefix, last_four, created_at, last_used_at, revoked_at';
export const CHANNEL_COLUMNS = 'id, name, icon, country, needs_review';
export const CHANNEL_DETAIL_COLUMNS = `${CHANNEL_COLUMNS}, xmltv_id, name_fixed, country_fixed,
  reviewed_at, created_at, updated_at`;
export const SOURCE_COLUMNS = `id, location, country, every_ms, assume_offset_minutes, created_at,
  next_run_at, failures, last_attempt_at, last_success_at, last_ingest_at, last_status,
  last_outcome, last_error, etag, last_modified, content_sha256, source_file_id, channels,
  programmes, latest_end_ms, lease_holder, lease_until, warned_flags, warned_at`;
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

export function toChannelDetails(row: ChannelDetailsRow): ChannelDetails {
  return {
    ...toChannel(row),
    xmltvId: row.xmltv_id,
    nameFixed: Boolean(row.name_fixed),
    countryFixed: Boolean(row.country_fixed),
    reviewedAt: row.reviewed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toChannelScheduleEnd(row: ChannelScheduleEndRow): ChannelScheduleEnd {
  return {
    ...toChannelDetails(row),
    programmes: Number(row.programmes),
    latestEndMs: row.latest_end_ms === null ? null : Number(row.latest_end_ms),
  };
}

export function toSource(row: SourceRow): Source {
  return {
    id: row.id,
    location: row.location,
    country: row.country,
    everyMs: row.every_ms,
    assumeOffsetMinutes: row.assume_offset_minutes,
    createdAt: row.created_at,
    nextRunAt: row.next_run_at,
    failures: row.failures,
    lastAttemptAt: row.last_attempt_at,
    lastSuccessAt: row.last_success_at,
    lastIngestAt: row.last_ingest_at,
    lastStatus: row.last_status,
    lastOutcome: row.last_outcome as RefreshOutcome | null,
    lastError: row.last_error,
    etag: row.etag,
    lastModified: row.last_modified,
    contentSha256: row.content_sha256,
    sourceFileId: row.source_file_id,
    channels: row.channels,
    programmes: row.programmes,
    latestEndMs: row.latest_end_ms,
    leaseHolder: row.lease_holder,
    leaseUntil: row.lease_until,
    warnedFlags: row.warned_flags,
    warnedAt: row.warned_at,
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

/** A programme row with its stored details, for the programme detail route. */
export interface RichProgrammeRow extends ProgrammeRow {
  details: string;
}

/** A programme row with its channel, parsed times and details, for the guide routes. */
export interface TimedProgrammeRow extends RichProgrammeRow {
  channel_id: string;
  start_ms: number | string;
  stop_ms: number | string;
}

export const TIMED_PROGRAMME_COLUMNS = `${PROGRAMME_COLUMNS}, details, channel_id, start_ms, stop_ms`;

export function toTimedProgramme(row: TimedProgrammeRow): TimedProgramme {
  return {
    channelId: row.channel_id,
    startMs: Number(row.start_ms),
    stopMs: Number(row.stop_ms),
    id: row.id,
    programme: toProgramme(row),
    details: row.details,
  };
}

/**
 * Programmes longer than this have an index of their own (`programmes_long`), so a window's read
 * looks back only this far for the rest: the programme running at the window's start is found
 * without scanning the channel's history. SQLite uses a partial index only for a query that
 * repeats its condition, so the SQL of both engines is built from this one number.
 */
export const LONG_PROGRAMME_MS = 6 * 3_600_000;
export const LONG_PROGRAMME_CONDITION = `stop_ms - start_ms > ${LONG_PROGRAMME_MS}`;

export function toRichProgramme(row: RichProgrammeRow, channelId: string): RichProgramme {
  return richProgrammeOf(channelId, toProgramme(row), row.details);
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
