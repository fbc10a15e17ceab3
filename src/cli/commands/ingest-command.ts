import { mkdtemp, rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { IngestSummary } from '../../catalogue/ingest/ingest-xmltv.js';
import { displayLocation, downloadLimits } from '../../catalogue/ingest/guide-download.js';
import { scheduleStatus } from '../../domain/source-health.js';
import { isoCountryNote } from '../../domain/country.js';
import { countOf } from '../../domain/plural.js';
import type { CatalogueWriter } from '../../storage/catalogue-writer.js';
import type { Store } from '../../storage/store.js';
import { describeStorageWriteFailure } from '../../storage/errors.js';
import {
  describeMerge,
  printResult,
  ReportedFailure,
  withStore,
  type CliContext,
} from '../cli-context.js';
import { parseCountryOption, parseOffsetOption } from '../option-parsers.js';

/**
 * The ingest's own modules (the XML reader and the pipeline) and the progress bar, loaded when
 * an ingest runs: every other command of the CLI starts without them (`hyperfine 'bin/onair
 * --version'`), as `serve` loads the server only when it serves.
 */
async function loadIngest() {
  const [cliProgress, { ingestXmltv, IngestError }] = await Promise.all([
    import('cli-progress'),
    import('../../catalogue/ingest/ingest-xmltv.js'),
  ]);
  return { cliProgress, ingestXmltv, IngestError };
}

type CliProgress = Awaited<ReturnType<typeof loadIngest>>['cliProgress'];

function progressBar(ctx: CliContext, cliProgress: CliProgress, label: string) {
  if (!ctx.stderr.isTTY) return null;
  const bar = new cliProgress.SingleBar(
    {
      stream: ctx.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} MB`,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(bytesRead: number, totalBytes: number | null) {
      const mb = (n: number) => Math.round(n / 1e5) / 10;
      if (!started) {
        bar.start(totalBytes === null ? 0 : mb(totalBytes), 0);
        started = true;
      }
      if (totalBytes !== null) bar.setTotal(mb(totalBytes));
      bar.update(mb(bytesRead));
    },
    /** Stops the bar, showing the cursor again; true when it was drawn (its line is cleared). */
    stop(): boolean {
      if (started) bar.stop();
      return started;
    },
  };
}

/** A person reads a few warnings; `--json` carries every one the ingest record keeps. */
const WARNINGS_ON_TERMINAL = 10;

function describeWarningsHeld(summary: IngestSummary, shown: number): string {
  if (shown === summary.warningCount) return '';
  return ` (the first ${shown} by line; --json lists the first ${summary.warnings.length})`;
}

/** Whether the guide's schedule has ended (history only) or ends within a day. */
export function scheduleNote(summary: IngestSummary, nowMs: number): string | null {
  const end = summary.latestEndMs === null ? null : new Date(summary.latestEndMs).toISOString();
  switch (scheduleStatus(summary.latestEndMs, nowMs)) {
    case 'ended':
      return end === null
        ? 'stale: the guide has no programme times'
        : `stale: every programme ended by ${end}; kept as history`;
    case 'ending':
      return `stale soon: the schedule ends within 24 hours, at ${end}`;
    default:
      return null;
  }
}

/** `1234` ms as `1.23 s`; below a second as `0.12 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** An input's summary; `check`: as `--check` read it, into a scratch catalogue. */
function formatSummary(summary: IngestSummary, nowMs: number, check: boolean): string {
  const lines = [
    check
      ? `Checked ${summary.source}: it reads as below; nothing was written to the catalogue`
      : `Ingested ${summary.source} as ${summary.sourceFileId}`,
    `  ${countOf(summary.channels, 'channel')} (${summary.channelsWithoutProgrammes} without programmes), ${countOf(summary.programmesRead, 'programme')} read, ${summary.programmesStored} ${check ? 'to store' : 'stored'}`,
    `  collapsed duplicates ${summary.exactDuplicates} exact + ${summary.conflictingDuplicates} conflicting, overlaps ${summary.overlaps}, programmes needing review ${summary.needsReview}`,
    ...(check ? [] : [`  catalogue: ${describeMerge(summary.merge)}`]),
    `  took ${seconds(summary.durationMs)}: read ${seconds(summary.durationMs - summary.mergeMs)}, merged ${seconds(summary.mergeMs)}`,
  ];
  const note = scheduleNote(summary, nowMs);
  if (note !== null) lines.push(`  ${note}`);
  if (summary.warningCount > 0) {
    const shown = summary.warnings.slice(0, WARNINGS_ON_TERMINAL);
    lines.push(
      `  ${countOf(summary.warningCount, 'warning')}${describeWarningsHeld(summary, shown.length)}:`,
    );
    for (const warning of shown) lines.push(`    line ${warning.line}: ${warning.message}`);
  }
  return lines.join('\n');
}

/**
 * Channels whose country was inferred (from the XMLTV id, else ZZ) wait for the operator: how
 * many, and the commands that list and place them.
 */
export function reviewNote(channels: number): string {
  const which = channels === 1 ? '1 channel needs' : `${channels} channels need`;
  return (
    `${which} review (country inferred from the XMLTV id, or ZZ): list with ` +
    '`bin/onair channels list --needs-review`, place with `bin/onair channels set <id> --country CC` ' +
    '(or `--reviewed` to keep it as it is)'
  );
}

/** Where a run of `onair ingest` stands, for the line an interruption prints. */
interface IngestRunState {
  /** The inputs as shown (URLs without credentials or query). */
  shown: string[];
  /** The input being read or merged; shown.length once every input has been through. */
  index: number;
  /** The inputs whose merge committed. */
  ingested: Set<number>;
  /** Whether the current input's merge is running (until it commits or rolls back). */
  merging: boolean;
  bar: ReturnType<typeof progressBar>;
  /**
   * Set by a signal that came during a merge: exits once the input is through, its summary (or
   * its error) printed first.
   */
  exitWhenThrough: (() => never) | null;
}

/** `a.xml`, `a.xml, b.xml`. */
function listed(inputs: string[]): string {
  return inputs.join(', ');
}

/** What an interrupted ingest did and did not do, as the rest of `onair: interrupted: …`. */
export function interruptedLine(state: Pick<IngestRunState, 'shown' | 'index' | 'ingested'>) {
  const done = state.shown.filter((_, i) => state.ingested.has(i));
  const later = state.shown.slice(state.index + 1);
  const notRead = later.length === 0 ? '' : `; not read: ${listed(later)}`;
  const current = state.shown[state.index];
  if (current !== undefined && !state.ingested.has(state.index)) {
    const before =
      done.length === 0 ? 'the catalogue is unchanged' : `ingested before it: ${listed(done)}`;
    return `${current} was not ingested; ${before}${notRead}`;
  }
  if (done.length === 0) return `nothing was ingested; the catalogue is unchanged${notRead}`;
  return `${listed(done)} ${done.length === 1 ? 'was' : 'were'} ingested${notRead}`;
}

/**
 * SIGINT/SIGTERM during an ingest: the bar stops (showing the cursor and turning line wrap back
 * on), one line says what was and was not ingested, and the process exits 130/143 (128 + the
 * signal, as a shell reports a process the signal ended).
 *
 * Nothing of an input reaches the catalogue until its merge commits, and what it staged lives
 * in the ingest's own transaction (PostgreSQL) or TEMP tables (SQLite): leaving the process
 * drops it all, so exiting at once keeps the catalogue unchanged. The store is not closed
 * first: the ingest is still running on it, and closing could wait on its staging. Once the
 * merge has begun it may be a moment from committing, so it is waited for, the input's
 * summary printed as usual, and the line tells which way it went; a second signal exits at once.
 */
function onInterrupt(ctx: CliContext, state: IngestRunState): (signal: NodeJS.Signals) => void {
  let stopping = false;
  const exit = (signal: NodeJS.Signals, line: string): never => {
    ctx.stderr.write(`onair: interrupted: ${line}\n`);
    process.exit(128 + constants.signals[signal]);
  };
  return (signal) => {
    if (stopping) {
      return exit(
        signal,
        `stopped during the merge of ${state.shown[state.index]}, which is rolled back unless it had just committed`,
      );
    }
    stopping = true;
    const cleared = state.bar?.stop() ?? false;
    // End the line the terminal echoed ^C on, unless the bar's clearing already did.
    if (!cleared && ctx.stderr.isTTY) ctx.stderr.write('\n');
    // Before its merge the input can be left at once; once the merge has begun (or just
    // committed), the input is seen through.
    if (!state.merging && !state.ingested.has(state.index)) {
      return exit(signal, interruptedLine(state));
    }
    state.exitWhenThrough = () => exit(signal, interruptedLine(state));
  };
}

/**
 * `work` with a store of its own in a new temporary folder, removed after: what `--check`
 * ingests into, so that an input is read, staged and merged by the same code as an ingest (the
 * same summary, duplicates and warnings) without touching the catalogue of DATABASE_URL.
 */
async function withScratchStore<T>(
  ctx: CliContext,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'onair-check-'));
  try {
    const scratch = {
      ...ctx,
      config: {
        ...ctx.config,
        database: { engine: 'sqlite' as const, path: join(dir, 'check.db') },
        // A scratch file, made on purpose: no note that DATABASE_URL was unset.
        databaseExplicit: true,
      },
    };
    return await withStore(scratch, work);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `writer` whose sessions' merges update `state`: when one runs and whether it committed. */
function watchedWriter(writer: CatalogueWriter, state: IngestRunState): CatalogueWriter {
  return {
    async beginIngest() {
      const session = await writer.beginIngest();
      return {
        stageChannel: (channel) => session.stageChannel(channel),
        stageProgramme: (programme) => session.stageProgramme(programme),
        drain: () => session.drain(),
        analyse: (options) => session.analyse(options),
        abort: () => session.abort(),
        commit(file, options) {
          const index = state.index;
          const merge = session.commit(file, options);
          state.merging = true;
          void merge.then(
            () => {
              state.ingested.add(index);
              state.merging = false;
            },
            () => {
              state.merging = false;
            },
          );
          return merge;
        },
      };
    },
  };
}

interface IngestOpts {
  country?: string;
  assumeOffset?: number;
  json?: boolean;
  check?: boolean;
}

type SummaryWithSchedule = IngestSummary & { schedule: 'ended' | 'ending' | null };

/** Ingests each input in turn, each in its own transaction, updating `state` as it goes. */
async function ingestAll(
  ctx: CliContext,
  inputs: string[],
  opts: IngestOpts,
  state: IngestRunState,
  summaries: SummaryWithSchedule[],
  failures: { source: string; error: string }[],
): Promise<void> {
  const { cliProgress, ingestXmltv, IngestError } = await loadIngest();
  // The same bounds as a source's download (SOURCE_TIMEOUT_SECONDS, SOURCE_MAX_MB).
  const download = downloadLimits(ctx.config.sourceTimeoutMs, ctx.config.sourceMaxBytes);
  await (opts.check ? withScratchStore : withStore)(ctx, async (store) => {
    const writer = watchedWriter(store.ingest, state);
    // A --country no channel had before the run that takes stored channels over is likely a
    // typo (`--country XXX` for DE): said for each input that moves some, with how to put them
    // back. Counted from the country's channels before and after each input (less the new ones,
    // which all land in it), so a rename is not a move and a second input is watched too.
    const country = opts.country?.toUpperCase() ?? null;
    const watchCountry =
      country !== null &&
      !(await store.catalogue.listCountries()).some((known) => known.country === country);
    const channelsIn = async (): Promise<Set<string>> =>
      new Set(
        watchCountry && country !== null
          ? (await store.catalogue.listChannels(country)).map((channel) => channel.id)
          : [],
      );
    for (const [index, input] of inputs.entries()) {
      state.index = index;
      const source = state.shown[index] ?? shownInput(input);
      const bar = opts.json ? null : progressBar(ctx, cliProgress, source);
      state.bar = bar;
      const nowMs = ctx.now();
      try {
        const inCountryBefore = await channelsIn();
        const summary = await ingestXmltv(
          writer,
          // `-`: standard input, as XMLTV's own tools read it (`tv_grab_fr | onair ingest -`).
          input === '-' ? { name: 'standard input', stream: process.stdin } : { source: input },
          {
            country: opts.country ?? null,
            assumeOffsetMinutes: opts.assumeOffset ?? 0,
            nowMs,
            retentionDays: ctx.config.retentionDays,
            changesRetentionDays: ctx.config.changesRetentionDays,
            download,
            onProgress: bar === null ? undefined : (read, total) => bar.update(read, total),
          },
        );
        bar?.stop();
        const joined = [...(await channelsIn())].filter((id) => !inCountryBefore.has(id));
        const moved = joined.length - summary.merge.channelsAdded;
        if (moved > 0) {
          ctx.stderr.write(
            `onair: warning: ${source}: ${countOf(moved, 'channel')} already in the catalogue moved to country ${country}${isoCountryNote(country ?? '')}, which had none before; if that is a typo, ingest again with the right --country\n`,
          );
        }
        summaries.push({ ...summary, schedule: scheduleStatus(summary.latestEndMs, nowMs) });
        if (!opts.json) {
          ctx.stdout.write(`${formatSummary(summary, nowMs, opts.check === true)}\n`);
        }
      } catch (error) {
        bar?.stop();
        const storage = describeStorageWriteFailure(error);
        if (storage !== null) {
          // Every later input would fail the same way: stop here.
          ctx.stderr.write(
            `onair: error: ${source}: cannot ${opts.check ? 'check' : 'store'} the guide: ${storage} (${(error as Error).message}); the catalogue is unchanged\n`,
          );
          throw new ReportedFailure(storage);
        }
        if (!(error instanceof IngestError)) throw error;
        failures.push({ source, error: error.message });
        ctx.stderr.write(
          `onair: error: ${source}: ${error.message}; the catalogue is unchanged by this input\n`,
        );
      } finally {
        state.bar = null;
        state.exitWhenThrough?.();
      }
    }
    state.index = inputs.length;
    if (!opts.json && !opts.check && summaries.length > 0) {
      const review = await store.channels.listChannels({ country: null, needsReview: true });
      if (review.length > 0) ctx.stdout.write(`${reviewNote(review.length)}\n`);
    }
  });
}

/** An input as the terminal, --json and the interrupted line show it: a URL without its credentials or query. */
function shownInput(input: string): string {
  return input === '-' ? 'standard input' : displayLocation(input);
}

/** `onair ingest`: load XMLTV files or URLs into the catalogue, one transaction per input. */
export function ingestCommand(ctx: CliContext): Command {
  return new Command('ingest')
    .description('ingest XMLTV guide files or http(s) URLs (plain or gzip)')
    .argument(
      '<file-or-url...>',
      'XMLTV inputs (- reads standard input); each is merged in its own transaction',
    )
    .option(
      '--country <code>',
      'country of every channel in the inputs (else inferred from ids)',
      parseCountryOption,
    )
    .option(
      '--assume-offset <+HHMM>',
      'UTC offset for times that carry none (default +0000)',
      parseOffsetOption,
    )
    .option(
      '--check',
      'read the inputs as an ingest would, into a scratch catalogue (the same summary and warnings), and write nothing to DATABASE_URL',
    )
    .option('--json', 'print JSON')
    .action(async (inputs: string[], opts: IngestOpts) => {
      const summaries: SummaryWithSchedule[] = [];
      const failures: { source: string; error: string }[] = [];
      const state: IngestRunState = {
        shown: inputs.map(shownInput),
        index: 0,
        ingested: new Set(),
        merging: false,
        bar: null,
        exitWhenThrough: null,
      };
      const interrupt = onInterrupt(ctx, state);
      process.on('SIGINT', interrupt);
      process.on('SIGTERM', interrupt);
      try {
        await ingestAll(ctx, inputs, opts, state, summaries, failures);
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
      if (opts.json) {
        const read = opts.check ? { checked: summaries } : { ingested: summaries };
        printResult(ctx, true, { ...read, failed: failures }, () => '');
      }
      if (failures.length > 0) {
        throw new ReportedFailure(`${failures.length} of ${inputs.length} inputs failed`);
      }
    });
}
