import { Command } from 'commander';
import type { IngestSummary } from '../../catalogue/ingest/ingest-xmltv.js';
import { displayLocation, downloadLimits } from '../../catalogue/ingest/guide-download.js';
import { scheduleStatus } from '../../domain/source-health.js';
import { describeStorageWriteFailure } from '../../storage/errors.js';
import { printResult, ReportedFailure, withStore, type CliContext } from '../cli-context.js';
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
    stop() {
      if (started) bar.stop();
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

function formatSummary(summary: IngestSummary, nowMs: number): string {
  const lines = [
    `Ingested ${summary.source} as ${summary.sourceFileId}`,
    `  channels ${summary.channels} (${summary.channelsWithoutProgrammes} without programmes), programmes read ${summary.programmesRead}, stored ${summary.programmesStored}`,
    `  collapsed duplicates ${summary.exactDuplicates} exact + ${summary.conflictingDuplicates} conflicting, overlaps ${summary.overlaps}, programmes needing review ${summary.needsReview}`,
    `  catalogue: +${summary.merge.programmesAdded} added, ${summary.merge.programmesUpdated} updated, ${summary.merge.programmesUnchanged} unchanged, ${summary.merge.programmesRemoved} removed`,
    `  took ${seconds(summary.durationMs)}: read ${seconds(summary.durationMs - summary.mergeMs)}, merged ${seconds(summary.mergeMs)}`,
  ];
  const note = scheduleNote(summary, nowMs);
  if (note !== null) lines.push(`  ${note}`);
  if (summary.warningCount > 0) {
    const shown = summary.warnings.slice(0, WARNINGS_ON_TERMINAL);
    lines.push(`  ${summary.warningCount} warnings${describeWarningsHeld(summary, shown.length)}:`);
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

/** `onair ingest`: load XMLTV files or URLs into the catalogue, one transaction per input. */
export function ingestCommand(ctx: CliContext): Command {
  return new Command('ingest')
    .description('ingest XMLTV guide files or http(s) URLs (plain or gzip)')
    .argument('<file-or-url...>', 'XMLTV inputs; each is merged in its own transaction')
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
    .option('--json', 'print JSON')
    .action(
      async (
        inputs: string[],
        opts: { country?: string; assumeOffset?: number; json?: boolean },
      ) => {
        const { cliProgress, ingestXmltv, IngestError } = await loadIngest();
        const summaries: (IngestSummary & { schedule: 'ended' | 'ending' | null })[] = [];
        const failures: { source: string; error: string }[] = [];
        // The same bounds as a source's download (SOURCE_TIMEOUT_SECONDS, SOURCE_MAX_MB).
        const download = downloadLimits(ctx.config.sourceTimeoutMs, ctx.config.sourceMaxBytes);
        await withStore(ctx, async (store) => {
          for (const input of inputs) {
            // What the terminal and --json show: a URL without its credentials or query.
            const source = displayLocation(input);
            const bar = opts.json ? null : progressBar(ctx, cliProgress, source);
            const nowMs = ctx.now();
            try {
              const summary = await ingestXmltv(
                store.ingest,
                { source: input },
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
              summaries.push({ ...summary, schedule: scheduleStatus(summary.latestEndMs, nowMs) });
              if (!opts.json) ctx.stdout.write(`${formatSummary(summary, nowMs)}\n`);
            } catch (error) {
              bar?.stop();
              const storage = describeStorageWriteFailure(error);
              if (storage !== null) {
                // Every later input would fail the same way: stop here.
                ctx.stderr.write(
                  `onair: error: ${source}: cannot store the guide: ${storage} (${(error as Error).message}); the catalogue is unchanged\n`,
                );
                throw new ReportedFailure(storage);
              }
              if (!(error instanceof IngestError)) throw error;
              failures.push({ source, error: error.message });
              ctx.stderr.write(
                `onair: error: ${source}: ${error.message}; the catalogue is unchanged by this input\n`,
              );
            }
          }
          if (!opts.json && summaries.length > 0) {
            const review = await store.channels.listChannels({ country: null, needsReview: true });
            if (review.length > 0) ctx.stdout.write(`${reviewNote(review.length)}\n`);
          }
        });
        if (opts.json) printResult(ctx, true, { ingested: summaries, failed: failures }, () => '');
        if (failures.length > 0) {
          throw new ReportedFailure(`${failures.length} of ${inputs.length} inputs failed`);
        }
      },
    );
}
