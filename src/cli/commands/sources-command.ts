import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  displayLocation,
  downloadLimits,
  isHttpLocation,
  unsupportedScheme,
} from '../../catalogue/ingest/guide-download.js';
import type { RefreshResult } from '../../sources/source-refresh.js';
import { formatDuration } from '../../domain/duration.js';
import { describeSourceFlag, sourceFlags } from '../../domain/source-health.js';
import { formatUtcOffset } from '../../domain/xmltv-time.js';
import { DuplicateSourceError } from '../../storage/errors.js';
import type { Source } from '../../domain/source.js';
import { countOf } from '../../domain/plural.js';
import type { Store } from '../../storage/store.js';
import {
  CliError,
  describeMerge,
  isoOrNull,
  printResult,
  ReportedFailure,
  withStore,
  type CliContext,
} from '../cli-context.js';
import { parseCountryOption, parseIntervalOption, parseOffsetOption } from '../option-parsers.js';

const DEFAULT_INTERVAL_MS = 6 * 3_600_000;

/**
 * A source as `sources list --json` shows it. Its location, here and in every output of these
 * commands, lacks credentials and query (a password, an API key): the id tells apart sources
 * that differ only there. The store keeps the whole URL for the refreshes.
 */
export function sourceJson(source: Source, nowMs: number) {
  return {
    id: source.id,
    location: displayLocation(source.location),
    country: source.country,
    every: formatDuration(source.everyMs),
    everySeconds: source.everyMs / 1000,
    assumeOffset: formatUtcOffset(source.assumeOffsetMinutes),
    createdAt: isoOrNull(source.createdAt),
    lastAttemptAt: isoOrNull(source.lastAttemptAt),
    lastSuccessAt: isoOrNull(source.lastSuccessAt),
    lastIngestAt: isoOrNull(source.lastIngestAt),
    lastOutcome: source.lastOutcome,
    lastStatus: source.lastStatus,
    lastError: source.lastError,
    etag: source.etag,
    lastModified: source.lastModified,
    sourceFileId: source.sourceFileId,
    channels: source.channels,
    programmes: source.programmes,
    scheduleEndsAt: isoOrNull(source.latestEndMs),
    failures: source.failures,
    nextRunAt: isoOrNull(source.nextRunAt),
    refreshingNow:
      source.leaseUntil !== null && source.leaseUntil > nowMs ? source.leaseHolder : null,
    flags: sourceFlags(source, nowMs),
  };
}

function formatSource(source: Source, nowMs: number): string {
  const lines = [
    `${source.id}  ${displayLocation(source.location)}`,
    `  country ${source.country}, every ${formatDuration(source.everyMs)}, times without offset at ${formatUtcOffset(source.assumeOffsetMinutes)}`,
  ];
  if (source.lastAttemptAt === null) {
    lines.push('  not refreshed yet');
  } else {
    const answer = source.lastStatus === null ? '' : `, HTTP ${source.lastStatus}`;
    lines.push(
      `  last attempt ${isoOrNull(source.lastAttemptAt)}: ${source.lastOutcome ?? 'in progress'}${answer}` +
        (source.lastError === null ? '' : ` (${source.lastError})`),
    );
    lines.push(
      `  last success ${isoOrNull(source.lastSuccessAt) ?? 'never'}, last ingest ${isoOrNull(source.lastIngestAt) ?? 'never'}`,
    );
  }
  if (source.etag !== null || source.lastModified !== null) {
    lines.push(`  ETag ${source.etag ?? '-'}, Last-Modified ${source.lastModified ?? '-'}`);
  }
  if (source.lastIngestAt !== null) {
    lines.push(
      `  ${countOf(source.channels ?? 0, 'channel')}, ${countOf(source.programmes ?? 0, 'programme')}; schedule ends ${isoOrNull(source.latestEndMs) ?? '(no programmes)'}`,
    );
  }
  const refreshing = source.leaseUntil !== null && source.leaseUntil > nowMs;
  lines.push(
    refreshing
      ? `  being refreshed now by ${source.leaseHolder}`
      : `  next run ${isoOrNull(source.nextRunAt)}${source.failures > 0 ? ` (${countOf(source.failures, 'failure')} in a row)` : ''}`,
  );
  for (const flag of sourceFlags(source, nowMs)) {
    lines.push(`  ! ${describeSourceFlag(flag, source)}`);
  }
  return lines.join('\n');
}

/**
 * Finds a source by id, by its location as added, or by its location as `sources list` shows
 * it (without credentials or query: what an operator copies) when only one source shows so;
 * CliError when there is none, or several. A location with credentials or a query of its own
 * is matched as added only: it names that source and no other.
 */
async function requireSource(store: Store, idOrLocation: string): Promise<Source> {
  const key = idOrLocation.trim();
  const byId = await store.sources.findSource(key);
  if (byId !== null) return byId;
  const all = await store.sources.listSources();
  const byLocation =
    all.find((s) => s.location === key) ?? all.find((s) => s.location === resolve(key));
  if (byLocation !== undefined) return byLocation;
  // Only a location given as shown: one with its own credentials or query names that source.
  const shownAs =
    displayLocation(key) === key ? all.filter((s) => displayLocation(s.location) === key) : [];
  if (shownAs.length > 1) {
    throw new CliError(
      `${shownAs.length} sources show as ${key}: name one by its id (${shownAs
        .map((s) => s.id)
        .sort()
        .join(', ')})`,
    );
  }
  const [shown] = shownAs;
  if (shown === undefined) {
    throw new CliError(`no source with id or location ${displayLocation(key)}`);
  }
  return shown;
}

/** A guide location as stored: an http(s) URL as given, or an absolute path to a file. */
async function parseLocation(text: string): Promise<string> {
  const value = text.trim();
  if (isHttpLocation(value)) {
    try {
      return new URL(value).href;
    } catch {
      throw new CliError(`"${displayLocation(value)}" is not a valid URL`);
    }
  }
  const unsupported = unsupportedScheme(value);
  if (unsupported !== null) throw new CliError(unsupported);
  const path = resolve(value);
  const info = await stat(path).catch(() => null);
  if (info === null) throw new CliError(`no such file: ${path}`);
  if (!info.isFile()) throw new CliError(`${path} is not a file`);
  return path;
}

function describeResult(result: RefreshResult, location: string): string {
  const head = `${result.sourceId} (${location})`;
  const status = result.status === null ? '' : ` (HTTP ${result.status})`;
  switch (result.outcome) {
    case 'ingested': {
      const s = result.summary;
      if (s === null) return `${head}: ingested${status}`;
      const m = s.merge;
      return [
        `${head}: ingested${status} as ${s.sourceFileId}`,
        `  ${countOf(s.channels, 'channel')}, ${countOf(s.programmesStored, 'programme')}: ${describeMerge(m)}`,
        `  collapsed duplicates ${s.exactDuplicates} exact + ${s.conflictingDuplicates} conflicting, overlaps ${s.overlaps}, programmes needing review ${s.needsReview}`,
      ].join('\n');
    }
    case 'not-modified':
      return `${head}: not modified${status}; nothing re-ingested`;
    case 'unchanged':
      return `${head}: same content as last ingested${status}; nothing re-ingested`;
    case 'busy':
      return `${head}: being refreshed by another process (${result.source?.leaseHolder ?? 'unknown'}) right now; not refreshed twice`;
    case 'not-due':
      return `${head}: not due`;
    case 'missing':
      return `${head}: removed meanwhile`;
    case 'failed':
      return `${head}: failed${status}: ${result.error ?? 'unknown error'}; the catalogue is unchanged by it`;
  }
}

/** `onair sources …`: guides the server fetches and ingests on its own schedule. */
export function sourcesCommand(ctx: CliContext): Command {
  const sources = new Command('sources').description(
    'guide sources that the server refreshes on its own schedule',
  );

  sources
    .command('add')
    .description('add an XMLTV guide (http(s) URL or file) that the server refreshes by itself')
    .argument('<url-or-path>', 'where the guide is: an http(s) URL or a file path')
    .requiredOption('--country <code>', 'country of every channel in the guide', parseCountryOption)
    .option(
      '--every <duration>',
      'how often to refresh it, 1m to 30d (default 6h)',
      parseIntervalOption,
    )
    .option(
      '--assume-offset <+HHMM>',
      'UTC offset for times that carry none (default +0000)',
      parseOffsetOption,
    )
    .option('--json', 'print JSON')
    .action(
      async (
        location: string,
        opts: { country: string; every?: number; assumeOffset?: number; json?: boolean },
      ) => {
        const nowMs = ctx.now();
        const stored = await parseLocation(location);
        await withStore(ctx, async (store) => {
          let source: Source;
          try {
            source = await store.sources.addSource(
              {
                location: stored,
                country: opts.country,
                everyMs: opts.every ?? DEFAULT_INTERVAL_MS,
                assumeOffsetMinutes: opts.assumeOffset ?? 0,
              },
              nowMs,
            );
          } catch (error) {
            // The store's message repeats the location whole.
            if (error instanceof DuplicateSourceError) {
              throw new CliError(`${displayLocation(stored)} is already a source`);
            }
            throw error;
          }
          printResult(ctx, opts.json === true, sourceJson(source, nowMs), () =>
            [
              `Added source ${source.id}: ${displayLocation(source.location)}`,
              `  country ${source.country}, every ${formatDuration(source.everyMs)}; a running server refreshes it on its next check, or run: bin/onair sources refresh ${source.id}`,
            ].join('\n'),
          );
        });
      },
    );

  sources
    .command('list')
    .description(
      'list sources: last attempt and success, HTTP status, validators, counts, next run',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const list = await store.sources.listSources();
        printResult(
          ctx,
          opts.json === true,
          list.map((s) => sourceJson(s, nowMs)),
          () =>
            list.length === 0
              ? 'No sources. Add one with: bin/onair sources add <url-or-path> --country CODE'
              : list.map((s) => formatSource(s, nowMs)).join('\n\n'),
        );
      });
    });

  sources
    .command('remove')
    .description('remove a source; what it ingested stays in the catalogue')
    .argument('<id>', 'id of the source (or its location, as added or as listed)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const source = await requireSource(store, id);
        await store.sources.removeSource(source.id);
        const location = displayLocation(source.location);
        printResult(
          ctx,
          opts.json === true,
          { removed: source.id, location },
          () =>
            `Removed source ${source.id} (${location}); its channels and programmes stay in the catalogue.`,
        );
      });
    });

  sources
    .command('refresh')
    .description(
      'refresh one source, or every source, now (conditional GET: unchanged guides are not re-ingested)',
    )
    .argument(
      '[id]',
      'id of the source (or its location, as added or as listed); every source when omitted',
    )
    .option('--json', 'print JSON')
    .action(async (id: string | undefined, opts: { json?: boolean }) => {
      // Loaded when a refresh runs, with the ingest behind it (see ingest-command.ts).
      const [{ refreshSource }, { leaseHolderName }] = await Promise.all([
        import('../../sources/source-refresh.js'),
        import('../../sources/source-scheduler.js'),
      ]);
      const results: (RefreshResult & { location: string })[] = [];
      await withStore(ctx, async (store) => {
        const targets =
          id === undefined ? await store.sources.listSources() : [await requireSource(store, id)];
        if (targets.length === 0 && !opts.json) {
          ctx.stdout.write('No sources to refresh.\n');
        }
        const deps = {
          store,
          now: ctx.now,
          log: silentLog,
          limits: downloadLimits(ctx.config.sourceTimeoutMs, ctx.config.sourceMaxBytes),
          retentionDays: ctx.config.retentionDays,
          changesRetentionDays: ctx.config.changesRetentionDays,
          holder: `cli:${leaseHolderName()}`,
        };
        for (const source of targets) {
          const result = await refreshSource(deps, source.id, { force: true });
          const location = displayLocation(source.location);
          results.push({ ...result, location });
          if (opts.json) continue;
          const text = describeResult(result, location);
          if (result.outcome === 'failed') ctx.stderr.write(`onair: error: ${text}\n`);
          else ctx.stdout.write(`${text}\n`);
          for (const flag of result.flags) {
            if (flag === 'last-refresh-failed') continue;
            const facts = result.source ?? source;
            ctx.stdout.write(`  ! ${describeSourceFlag(flag, facts)}\n`);
          }
        }
      });
      const nowMs = ctx.now();
      if (opts.json) {
        printResult(
          ctx,
          true,
          results.map((r) => ({
            sourceId: r.sourceId,
            location: r.location,
            outcome: r.outcome,
            status: r.status,
            error: r.error,
            flags: r.flags,
            summary: r.summary,
            source: r.source === null ? null : sourceJson(r.source, nowMs),
          })),
          () => '',
        );
      }
      const failed = results.filter((r) => r.outcome === 'failed').length;
      if (failed > 0) throw new ReportedFailure(`${failed} of ${results.length} sources failed`);
    });

  return sources;
}

/** The CLI reports each outcome itself; the refresh's own log lines are for the server. */
const silentLog = { info() {}, warn() {}, error() {} };
