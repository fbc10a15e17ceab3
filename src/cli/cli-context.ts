import { existsSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';
import { channelIdFor, isUuid } from '../domain/catalogue-ids.js';
import { openStore, type Clock } from '../open-store.js';
import type { MergeStats } from '../storage/catalogue-writer.js';
import type { Store } from '../storage/store.js';

/** What every command receives: the parsed configuration, the clock and where to write. */
export interface CliContext {
  config: Config;
  now: Clock;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** An error meant for the operator: printed as one line, exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/** A failure the command has already reported on stderr: exit code 1, nothing more printed. */
export class ReportedFailure extends CliError {
  override name = 'ReportedFailure';
}

/** Runs `work` with the configured store open, closing it afterwards whatever happens. */
export async function withStore<T>(
  ctx: CliContext,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const { database, databaseExplicit } = ctx.config;
  // An operator of PostgreSQL who forgot DATABASE_URL in this shell would otherwise work on a
  // new, empty SQLite file in silence ("no account with e-mail …").
  const madeHere = !databaseExplicit && database.engine === 'sqlite' && !existsSync(database.path);
  const store = await openStore(ctx.config, ctx.now);
  if (madeHere && database.engine === 'sqlite') {
    ctx.stderr.write(
      `onair: note: no DATABASE_URL set: made a new SQLite database at ${database.path}\n`,
    );
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Writes a command's result: JSON on stdout with --json, else the human text. */
export function printResult(
  ctx: CliContext,
  json: boolean,
  data: unknown,
  human: () => string,
): void {
  ctx.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

/**
 * What a merge changed, as the ingest and source commands print it: the programmes, and the
 * channels when any was added or changed (a --country that re-homes a guide shows here).
 */
export function describeMerge(m: MergeStats): string {
  const programmes = `+${m.programmesAdded} added, ${m.programmesUpdated} updated, ${m.programmesUnchanged} unchanged, ${m.programmesRemoved} removed`;
  return m.channelsAdded === 0 && m.channelsUpdated === 0
    ? programmes
    : `${programmes}; channels +${m.channelsAdded} added, ${m.channelsUpdated} updated`;
}

/** ISO 8601 text of an epoch-ms instant, or null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * The channel ids for what the operator typed (a channel id or an XMLTV id, each trimmed),
 * repeats dropped with the first place kept, found in one read of the catalogue; a channel not
 * in it is refused by what was typed, not by the UUID an XMLTV id maps to, and `refusal` ends
 * the message (what the command did not do).
 */
export async function requireChannels(
  store: Store,
  typed: readonly string[],
  refusal = '',
): Promise<string[]> {
  const named = typed.map((text) => {
    const trimmed = text.trim();
    const lower = trimmed.toLowerCase();
    return { text, id: isUuid(lower) ? lower : channelIdFor(trimmed) };
  });
  const ids = [...new Set(named.map((n) => n.id))];
  const found = new Set((await store.catalogue.findChannels(ids)).map((c) => c.id));
  const missing = named.find((n) => !found.has(n.id));
  if (missing !== undefined) {
    throw new CliError(
      `no channel "${missing.text}" in the catalogue (give a channel id or an XMLTV channel id)${refusal}`,
    );
  }
  return ids;
}

/** A repeated `--channel <id>`: the ids as typed, trimmed; requireChannels resolves them. */
export function collectChannel(text: string, previous: string[]): string[] {
  const value = text.trim();
  if (value === '') throw new InvalidArgumentError('a channel id cannot be empty');
  return [...previous, value];
}
