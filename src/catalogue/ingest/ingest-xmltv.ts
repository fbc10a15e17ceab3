import { randomUUID } from 'node:crypto';
import { channelIdFor } from '../../domain/catalogue-ids.js';
import { UNKNOWN_COUNTRY, inferCountryFromXmltvId } from '../../domain/country.js';
import type {
  CatalogueWriter,
  IngestSession,
  MergeStats,
  SourceFileRecord,
  StagingStats,
} from '../../storage/catalogue-writer.js';
import { SOURCE_DEFAULTS } from '../../config.js';
import { gunzipIfGzip, openByteSource, tallied, type IngestInput } from './byte-source.js';
import { downloadLimits, type DownloadLimits } from './guide-download.js';
import { detailsOf, encodeDetails, type LangText } from '../../domain/programme-details.js';
import { searchedTextsOf } from '../../domain/programme-search.js';
import { storedV1Texts } from '../../domain/programme.js';
import { TimeConverter } from '../xmltv/time-converter.js';
import { readXmltv, type XmltvChannel, type XmltvProgramme } from '../xmltv/xmltv-reader.js';

export { IngestError } from './ingest-error.js';
export type { IngestInput } from './byte-source.js';

/** Warnings kept in a summary; the total is always counted. */
export const MAX_WARNINGS = 100;

export interface IngestOptions {
  /** Country of every channel in the input (validated, upper-case), or null to infer. */
  country: string | null;
  /** UTC offset in minutes for times that carry none (XMLTV says UTC, so default 0). */
  assumeOffsetMinutes: number;
  /** The ingest's clock: `updatedAt` of changed programmes and the source file's time. */
  nowMs: number;
  /** Called as bytes are read, with the total when known. */
  onProgress?: (bytesRead: number, totalBytes: number | null) => void;
  /** When set, programmes that started more than this many days ago are pruned. */
  retentionDays?: number | null;
  /** Change records older than this many days are pruned by the ingest (null: kept). */
  changesRetentionDays?: number | null;
  /** Bounds of reading an http(s) URL; by default those of a deployment with no settings. */
  download?: DownloadLimits;
}

/** What a URL ingest runs under when its caller names no limits. */
function defaultDownloadLimits(): DownloadLimits {
  return downloadLimits(SOURCE_DEFAULTS.timeoutSeconds * 1000, SOURCE_DEFAULTS.maxMb * 1024 * 1024);
}

/** A per-element problem that did not stop the ingest. */
export interface IngestWarning {
  line: number;
  message: string;
}

/** Programmes flagged needsReview, by reason (one programme can have two reasons). */
export interface NeedsReviewCounts {
  unparseableStart: number;
  /** Starts before 1990 (EARLIEST_BROADCAST_MS): kept as starts that do not parse. */
  startBeforeBroadcasts: number;
  unparseableStop: number;
  stopNotAfterStart: number;
}

/** What a file held, counted as read (before collapsing) unless a field says otherwise. */
export interface IngestFileSummary {
  source: string;
  country: string | null;
  assumeOffsetMinutes: number;
  encoding: string;
  gzip: boolean;
  /** Bytes as read (compressed size for gzip input). */
  bytesRead: number;
  /** Bytes of XML after gunzip (equal to bytesRead for plain input). */
  bytesUncompressed: number;
  /** SHA-256 of the bytes as read. */
  sha256: string;
  lines: number;
  /** Distinct channels: those with a `<channel>` element plus those only named by programmes. */
  channels: number;
  channelElements: number;
  /** `<channel>` elements for an id seen before in the file (merged into the first). */
  repeatedChannelElements: number;
  /** Channels with a `<channel>` element and no programme in the file. */
  channelsWithoutProgrammes: number;
  /** Channels named by programmes but without a `<channel>` element. */
  undeclaredChannels: number;
  programmesRead: number;
  /**
   * Programmes without a `channel` attribute, which cannot be stored, and those not directly
   * in `<tv>` (each with a warning).
   */
  programmesSkipped: number;
  /** Programmes left after collapsing same (channel, start): what the catalogue gets. */
  programmesStored: number;
  /** Repeats of a (channel, start) identical to the programme they replace. */
  exactDuplicates: number;
  /** Repeats of a (channel, start) with different content; the later in the file wins. */
  conflictingDuplicates: number;
  /** Stored programmes starting before the previous programme of their channel stops. */
  overlaps: number;
  /** Programmes without a stop (stored as ""; not a review reason by itself). */
  missingStop: number;
  /**
   * Latest parsed start or stop of any programme (epoch ms), where the file's schedule ends;
   * null when no time parses.
   */
  latestEndMs: number | null;
  /** Programmes read that are flagged needsReview. */
  needsReview: number;
  needsReviewByReason: NeedsReviewCounts;
  /** Every warning counted, also those beyond the list. */
  warningCount: number;
  /** The first warnings by line, at most MAX_WARNINGS. */
  warnings: IngestWarning[];
}

/** Result of one ingest: what the file held and how the catalogue changed. */
export interface IngestSummary extends IngestFileSummary {
  sourceFileId: string;
  /** The whole ingest: opening the input, reading and staging it, the merge. */
  durationMs: number;
  /**
   * Of durationMs, the merge: its statements and commit (the catalogue's write lock is held for
   * those) and, on SQLite, the WAL checkpoint after the commit. The rest is the file's read.
   */
  mergeMs: number;
  merge: MergeStats;
}

/** Keeps the MAX_WARNINGS warnings with the lowest lines, whatever order they come in. */
class WarningLog {
  count = 0;
  private readonly kept: IngestWarning[] = [];
  private maxLine = -1;

  add(line: number, message: string): void {
    this.count++;
    if (this.kept.length < MAX_WARNINGS) {
      this.kept.push({ line, message });
      this.maxLine = Math.max(this.maxLine, line);
      return;
    }
    // Warnings mostly arrive in line order, so this is nearly always the quick way out.
    if (line >= this.maxLine) return;
    const at = this.kept.findIndex((w) => w.line === this.maxLine);
    this.kept[at] = { line, message };
    this.maxLine = Math.max(...this.kept.map((w) => w.line));
  }

  list(): IngestWarning[] {
    return [...this.kept].sort((a, b) => a.line - b.line);
  }
}

/**
 * Starts before this (1990-01-01 UTC) are taken for a grabber's glitch, not a broadcast: a
 * timestamp of 0 comes out as 1970-01-01, and the file replaces each channel's stored
 * programmes from its earliest start, so one such programme removed a channel's whole history.
 * No guide of the corpus starts before 2018.
 */
const EARLIEST_BROADCAST_MS = Date.UTC(1990, 0, 1);

/**
 * Display-names kept per channel. Guides give a few (a name, a short name, a number); the bound
 * keeps a guide that repeats the element without end from costing time or space.
 */
const MAX_DISPLAY_NAMES = 32;

interface ChannelState {
  xmltvId: string;
  id: string;
  /** First non-empty display-name / icon over all elements for this id. */
  name: string;
  /** Every non-empty display-name over all elements for this id, each text once, in order. */
  displayNames: LangText[];
  icon: string;
  /** `<channel>` elements seen for this id (0: only named by programmes). */
  elements: number;
  programmes: number;
  /** Line of the first `<channel>` element, or of the first programme naming it. */
  line: number;
  /** Parsed start and stop of the channel's latest programme so far (NaN: none yet). */
  lastStartMs: number;
  lastStopMs: number | null;
}

/** Maps reader events to catalogue records with the domain rules, and counts what it sees. */
class IngestRun {
  readonly warnings = new WarningLog();
  readonly channels = new Map<string, ChannelState>();
  readonly review: NeedsReviewCounts = {
    unparseableStart: 0,
    startBeforeBroadcasts: 0,
    unparseableStop: 0,
    stopNotAfterStart: 0,
  };
  channelElements = 0;
  repeatedChannelElements = 0;
  programmesRead = 0;
  programmesSkipped = 0;
  missingStop = 0;
  latestEndMs = Number.NEGATIVE_INFINITY;
  needsReview = 0;
  /** Overlaps among the collapsed programmes, valid while `inStartOrder`. */
  overlaps = 0;
  /** True while every channel's parseable starts have come in non-decreasing order. */
  inStartOrder = true;
  private readonly time: TimeConverter;
  /** Its own converter: `previously-shown` times would push the starts out of `time`'s memory. */
  private readonly shownTime: TimeConverter;

  constructor(
    private readonly session: IngestSession,
    private readonly options: IngestOptions,
  ) {
    this.time = new TimeConverter(options.assumeOffsetMinutes);
    this.shownTime = new TimeConverter(options.assumeOffsetMinutes);
  }

  /** A `previously-shown` start in the catalogue's form, like every time (as given if it does not parse). */
  private readonly shownUtc = (text: string): string => {
    this.shownTime.convert(text.trim());
    return this.shownTime.utc;
  };

  private channelFor(xmltvId: string, line: number): ChannelState {
    let state = this.channels.get(xmltvId);
    if (state === undefined) {
      state = {
        xmltvId,
        id: channelIdFor(xmltvId),
        name: '',
        displayNames: [],
        icon: '',
        elements: 0,
        programmes: 0,
        line,
        lastStartMs: Number.NaN,
        lastStopMs: null,
      };
      this.channels.set(xmltvId, state);
    }
    return state;
  }

  readonly onChannel = (element: XmltvChannel): void => {
    this.channelElements++;
    if (element.xmltvId === '') {
      this.warnings.add(element.line, '<channel> without an id attribute; skipped');
      return;
    }
    const state = this.channelFor(element.xmltvId, element.line);
    if (state.elements > 0) this.repeatedChannelElements++;
    // Programmes may name a channel before its element comes; the element's line is the better one.
    else state.line = element.line;
    state.elements++;
    for (const name of element.displayNames) {
      if (state.displayNames.length >= MAX_DISPLAY_NAMES) break;
      // Each text once, with the lang it first came with.
      const known = state.displayNames.some((n) => n.value === name.value);
      if (name.value !== '' && !known) state.displayNames.push(name);
    }
    if (state.name === '') state.name = state.displayNames[0]?.value ?? '';
    if (state.icon === '' && element.iconSrc !== null) state.icon = element.iconSrc.trim();
  };

  readonly onMisplaced = (name: 'programme' | 'channel', parent: string, line: number): void => {
    if (name === 'programme') {
      this.programmesRead++;
      this.programmesSkipped++;
    }
    this.warnings.add(
      line,
      `<${name}> inside <${parent}>, not directly in <tv>, where XMLTV has them; skipped`,
    );
  };

  readonly onProgramme = (element: XmltvProgramme): void => {
    this.programmesRead++;
    const line = element.line;
    const xmltvId = element.channel ?? '';
    if (xmltvId === '') {
      this.programmesSkipped++;
      this.warnings.add(
        line,
        element.channel === null
          ? '<programme> without a channel attribute; skipped'
          : '<programme> with an empty channel attribute; skipped',
      );
      return;
    }
    const channel = this.channelFor(xmltvId, line);
    channel.programmes++;

    const time = this.time;
    const startText = element.start ?? '';
    time.convert(startText);
    let startMs = time.ms;
    const start = time.utc;
    let stopMs: number | null = null;
    let stop = '';
    const stopText = element.stop ?? '';
    if (stopText === '') {
      this.missingStop++;
    } else {
      time.convert(stopText);
      stopMs = time.ms;
      stop = time.utc;
    }

    let review = false;
    if (startMs !== null && startMs < EARLIEST_BROADCAST_MS) {
      // Kept as a start that does not parse: for review, and out of the span the file replaces.
      startMs = null;
      review = true;
      this.review.startBeforeBroadcasts++;
      this.warnings.add(
        line,
        `channel "${xmltvId}": start ${start} is before 1990, a grabber's glitch (an epoch-0 time?); kept for review, and the channel's stored programmes are replaced only from its other starts on`,
      );
    } else if (startMs === null) {
      review = true;
      this.review.unparseableStart++;
      this.warnings.add(
        line,
        element.start === null
          ? `channel "${xmltvId}": <programme> without a start attribute; kept for review`
          : `channel "${xmltvId}": start "${startText}" is not an XMLTV time; kept for review`,
      );
    }
    if (stopText !== '' && stopMs === null) {
      review = true;
      this.review.unparseableStop++;
      this.warnings.add(
        line,
        `channel "${xmltvId}": stop "${stopText}" is not an XMLTV time; kept for review`,
      );
    }
    if (startMs !== null && stopMs !== null && stopMs <= startMs) {
      review = true;
      this.review.stopNotAfterStart++;
      this.warnings.add(
        line,
        `channel "${xmltvId}": stop ${stop} is not after start ${start}; kept for review`,
      );
    }
    if (review) this.needsReview++;
    if (startMs !== null && startMs > this.latestEndMs) this.latestEndMs = startMs;
    if (stopMs !== null && stopMs > this.latestEndMs) this.latestEndMs = stopMs;
    if (startMs !== null && this.inStartOrder) this.trackOverlap(channel, startMs, stopMs);

    const title = element.title ?? '';
    const desc = element.desc ?? '';
    const category = element.categories.join(', ');
    const details = detailsOf(element.elements, this.shownUtc);
    const v1 = storedV1Texts({ title, desc, category });
    this.session.stageProgramme({
      channelId: channel.id,
      start,
      stop,
      startMs,
      stopMs,
      title,
      desc,
      category,
      details: encodeDetails(details, v1),
      searchedTexts: searchedTextsOf(v1, details),
      needsReview: review,
      line,
    });
  };

  /**
   * Counts overlaps the way the store would (consecutive collapsed programmes of a channel in
   * start order), as long as the file lists each channel in start order, which nearly all
   * guides do; a start that goes back hands the count to the store instead.
   */
  private trackOverlap(channel: ChannelState, startMs: number, stopMs: number | null): void {
    const last = channel.lastStartMs;
    if (startMs > last || Number.isNaN(last)) {
      if (channel.lastStopMs !== null && startMs < channel.lastStopMs) this.overlaps++;
      channel.lastStartMs = startMs;
      channel.lastStopMs = stopMs;
    } else if (startMs === last) {
      channel.lastStopMs = stopMs; // a duplicate: the later one is kept
    } else {
      this.inStartOrder = false;
    }
  }

  /** Stages every channel once, now that the whole file has been seen. */
  stageChannels(): void {
    const country = this.options.country;
    for (const state of this.channels.values()) {
      const declared = state.elements > 0;
      if (!declared) {
        this.warnings.add(
          state.line,
          `channel "${state.xmltvId}" has programmes but no <channel> element; a channel already stored keeps its name, a new one is named after its id`,
        );
      } else if (state.name === '') {
        this.warnings.add(
          state.line,
          `channel "${state.xmltvId}" has no display-name; its id is used as the name`,
        );
      }
      this.session.stageChannel({
        id: state.id,
        xmltvId: state.xmltvId,
        name: state.name === '' ? state.xmltvId : state.name,
        displayNames: state.displayNames,
        icon: state.icon,
        country,
        fallbackCountry: inferCountryFromXmltvId(state.xmltvId) ?? UNKNOWN_COUNTRY,
        declared,
      });
    }
  }

  /** Warnings for collapsed duplicates, from the store's sample of the first slots by line. */
  addDuplicateWarnings(stats: StagingStats): void {
    const xmltvIds = new Map<string, string>();
    for (const state of this.channels.values()) xmltvIds.set(state.id, state.xmltvId);
    for (const sample of stats.duplicateSamples) {
      const channel = xmltvIds.get(sample.channelId) ?? sample.channelId;
      const repeats = sample.exactDuplicates + sample.conflictingDuplicates;
      const kind =
        sample.conflictingDuplicates === 0
          ? repeats === 1
            ? 'an identical copy'
            : `${repeats} identical copies`
          : repeats === 1
            ? 'a different programme'
            : `${repeats} other programmes`;
      this.warnings.add(
        sample.firstLine,
        `channel "${channel}" has ${kind} with the same start ${sample.start}; the last (line ${sample.keptLine}) is kept`,
      );
    }
    // The rest are counted, not listed: the sample holds the lowest lines already.
    this.warnings.count += stats.duplicateSlots - stats.duplicateSamples.length;
  }
}

/**
 * Ingests one XMLTV input into the catalogue: streams it (file, http(s) URL or bytes in memory;
 * plain or gzip, detected by magic bytes), maps it with the catalogue rules, stages it in an
 * ingest session and merges it in one transaction. On any error the session is aborted and the
 * error rethrown, so the catalogue is unchanged; input problems are IngestError.
 */
export async function ingestXmltv(
  writer: CatalogueWriter,
  input: IngestInput,
  options: IngestOptions,
): Promise<IngestSummary> {
  const startedAt = performance.now();
  const source = await openByteSource(input, options.download ?? defaultDownloadLimits());
  const onProgress = options.onProgress;
  const { chunks: raw, tally } = tallied(source.chunks, (bytes) =>
    onProgress?.(bytes, source.totalBytes),
  );
  let gzip = false;
  let uncompressed = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of gunzipIfGzip(raw, (isGzip) => (gzip = isGzip))) {
      uncompressed += chunk.length;
      yield chunk;
    }
  }

  let session: IngestSession;
  try {
    session = await writer.beginIngest();
  } catch (error) {
    await source.close();
    throw error;
  }
  try {
    const run = new IngestRun(session, options);
    const read = await readXmltv(
      counted(),
      { channel: run.onChannel, programme: run.onProgramme, misplaced: run.onMisplaced },
      { afterChunk: () => session.drain() },
    );
    run.stageChannels();
    const stats = await session.analyse({
      maxSamples: MAX_WARNINGS,
      countOverlaps: !run.inStartOrder,
    });
    run.addDuplicateWarnings(stats);
    // Well-formed and empty: as a grabber that failed leaves its output. Nothing is replaced,
    // and the operator is told rather than shown a success like any other.
    if (run.channelElements === 0 && run.programmesRead === 0) {
      run.warnings.add(1, 'the guide holds no <channel> and no <programme>: nothing changed');
    }

    let withoutProgrammes = 0;
    let undeclared = 0;
    for (const state of run.channels.values()) {
      if (state.elements === 0) undeclared++;
      else if (state.programmes === 0) withoutProgrammes++;
    }
    const file: IngestFileSummary = {
      source: source.name,
      country: options.country,
      assumeOffsetMinutes: options.assumeOffsetMinutes,
      encoding: read.encoding,
      gzip,
      bytesRead: tally.bytes,
      bytesUncompressed: uncompressed,
      sha256: tally.sha256(),
      lines: read.lines,
      channels: run.channels.size,
      channelElements: run.channelElements,
      repeatedChannelElements: run.repeatedChannelElements,
      channelsWithoutProgrammes: withoutProgrammes,
      undeclaredChannels: undeclared,
      programmesRead: run.programmesRead,
      programmesSkipped: run.programmesSkipped,
      programmesStored: stats.programmes,
      exactDuplicates: stats.exactDuplicates,
      conflictingDuplicates: stats.conflictingDuplicates,
      overlaps: stats.overlaps ?? run.overlaps,
      missingStop: run.missingStop,
      latestEndMs: Number.isFinite(run.latestEndMs) ? run.latestEndMs : null,
      needsReview: run.needsReview,
      needsReviewByReason: run.review,
      warningCount: run.warnings.count,
      warnings: run.warnings.list(),
    };
    const record: SourceFileRecord = {
      id: randomUUID(),
      source: source.name,
      country: options.country,
      sizeBytes: tally.bytes,
      sha256: file.sha256,
      ingestedAt: options.nowMs,
      summary: file,
    };
    const mergeStartedAt = performance.now();
    const merge = await session.commit(record, {
      retentionDays: options.retentionDays ?? null,
      changesRetentionDays: options.changesRetentionDays ?? null,
    });
    const endedAt = performance.now();
    return {
      sourceFileId: record.id,
      ...file,
      durationMs: Math.round(endedAt - startedAt),
      mergeMs: Math.round(endedAt - mergeStartedAt),
      merge,
    };
  } catch (error) {
    await session.abort().catch(() => undefined);
    throw error;
  } finally {
    await source.close();
  }
}
