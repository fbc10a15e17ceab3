import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CREDIT_ROLES, type CreditRole } from '../../src/domain/programme-details.js';
import { ensureDebianPackage } from './debian-packages.js';

/** The Perl script that reads a guide with the XMLTV library (see its header). */
export const REFERENCE_SCRIPT = join(import.meta.dirname, 'xmltv-reference.pl');

/** A programme as the XMLTV reference library reads it. */
export interface ReferenceProgramme {
  channel: string;
  /** Seconds since the epoch. */
  start: number;
  stop: number | null;
  /** Digest of the whole programme as the library returns it: equal for exact duplicates. */
  digest: string;
  /**
   * The script's counts of the programme's rich elements, by its names (`episode-num`,
   * `credits.actor`, `icon`, …, `skipped.rating`, `twice.credits`; see its header); absent = 0.
   */
  counts: ReadonlyMap<string, number>;
}

/** The library's view of one file, or its refusal. */
export type ReferenceView =
  | { accepted: true; programmes: ReferenceProgramme[]; warnings: string[]; cached: boolean }
  | { accepted: false; error: string; cached: boolean };

function toolsPresent(): boolean {
  const perl = spawnSync('perl', ['-MXMLTV', '-MXMLTV::Date', '-MDate::Manip', '-e', '1']);
  return perl.status === 0 && existsSync('/usr/bin/tv_sort');
}

/**
 * Makes sure Debian's xmltv-util (tv_sort, tv_grep, … and the XMLTV Perl library) is there,
 * installing it when missing (see ensureDebianPackage).
 */
export function ensureReferenceTools(): void {
  ensureDebianPackage('xmltv-util', toolsPresent, 'The XMLTV reference tools are missing');
}

let versions: string | null = null;

/** Versions the reference view depends on besides the file and the script. */
function toolVersions(): string {
  versions ??= execFileSync('perl', [
    '-MXMLTV',
    '-MDate::Manip',
    '-e',
    'print "XMLTV $XMLTV::VERSION, Date::Manip ", Date::Manip::DateManipVersion(), ", perl $]"',
  ]).toString();
  return versions;
}

/**
 * Where reference views are kept between runs. The library is slow (minutes of CPU for the whole
 * corpus), and its view of the same bytes read by the same script and library versions does not
 * change, so a view is reused only under a key made of all of those; anything else is computed.
 */
function cacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'onair', 'xmltv-reference');
}

function parseOutput(stdout: string): ReferenceProgramme[] {
  const unescape = (text: string) =>
    text.replace(/\\([tn\\])/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
  const programmes: ReferenceProgramme[] = [];
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const [channel = '', start = '', stop = '', digest = '', counts = ''] = line.split('\t');
    programmes.push({
      channel: unescape(channel),
      start: Number(start),
      stop: stop === '' ? null : Number(stop),
      digest,
      counts: new Map(
        counts
          .split(' ')
          .filter((pair) => pair !== '')
          .map((pair) => {
            const at = pair.lastIndexOf('=');
            return [pair.slice(0, at), Number(pair.slice(at + 1))];
          }),
      ),
    });
  }
  return programmes;
}

interface RawRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(file: string, zone: string): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('perl', [REFERENCE_SCRIPT, file, zone], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** How long a run of the library may hold its lock before another process takes over. */
const LOCK_STALE_MS = 15 * 60_000;

/**
 * Runs the library on a file once across processes: the two reference test files ask for the
 * same views at the same time (vitest runs them in parallel), and on a machine with nothing
 * cached (CI) the second waits for the first's run rather than running the library again.
 */
async function runOnce(cached: string, file: string, zone: string): Promise<RawRun> {
  mkdirSync(cacheDir(), { recursive: true });
  const lock = `${cached}.lock`;
  for (;;) {
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as RawRun;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held !== undefined && Date.now() - held.mtimeMs > LOCK_STALE_MS)
        rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      // Another process may have finished the run between our look and our lock.
      if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as RawRun;
      const raw = await runScript(file, zone);
      // Written whole, then renamed: a waiting process never reads half a file.
      writeFileSync(`${cached}.part`, JSON.stringify(raw));
      renameSync(`${cached}.part`, cached);
      return raw;
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
}

/** The XMLTV library's view of a guide file, with times without offset read in `zone`. */
export async function referenceView(file: string, zone: string): Promise<ReferenceView> {
  const key = createHash('sha256')
    .update(readFileSync(file))
    .update(readFileSync(REFERENCE_SCRIPT))
    .update(toolVersions())
    .update(zone)
    .digest('hex');
  const cached = join(cacheDir(), `${key}.json`);
  let raw: RawRun;
  let fromCache = false;
  if (process.env['ONAIR_REFERENCE_CACHE'] !== 'off' && existsSync(cached)) {
    raw = JSON.parse(readFileSync(cached, 'utf8')) as RawRun;
    fromCache = true;
  } else {
    raw = await runOnce(cached, file, zone);
  }
  const lines = raw.stderr.split('\n').filter((l) => l.trim() !== '');
  if (raw.code !== 0) {
    return {
      accepted: false,
      error: lines.join(' | ') || `exit code ${raw.code}`,
      cached: fromCache,
    };
  }
  return {
    accepted: true,
    programmes: parseOutput(raw.stdout),
    warnings: lines.filter((l) => !l.startsWith('reference: ')),
    cached: fromCache,
  };
}

/** Wraps work so that at most `limit` runs at a time; the rest wait their turn, in order. */
export function limiter(limit: number): <R>(work: () => Promise<R>) => Promise<R> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** The rich elements counted per programme (issue 21), under the names the comparison reports. */
export type RichCountName =
  | 'episode-num'
  | 'credits'
  | `credits.${CreditRole}`
  /** Programme `<icon>`s and `<image>`s together, as Onair keeps them (ProgrammeDetails.images). */
  | 'images'
  | 'sub-title'
  | 'rating'
  | 'star-rating'
  | 'keyword'
  | 'url';

export const RICH_COUNT_NAMES: readonly RichCountName[] = [
  'episode-num',
  'credits',
  ...CREDIT_ROLES.map((role) => `credits.${role}` as const),
  'images',
  'sub-title',
  'rating',
  'star-rating',
  'keyword',
  'url',
];

export type RichCounts = Record<RichCountName, number>;

export function noRichCounts(): RichCounts {
  const counts = {} as RichCounts;
  for (const name of RICH_COUNT_NAMES) counts[name] = 0;
  return counts;
}

export function addRichCounts(into: RichCounts, more: RichCounts): void {
  for (const name of RICH_COUNT_NAMES) into[name] += more[name];
}

/** The name a count of the script's (without its `skipped.` prefix) adds to, if any. */
function richNameOf(scriptName: string): RichCountName | null {
  if (scriptName === 'icon' || scriptName === 'image') return 'images';
  if (scriptName.startsWith('credits.')) return scriptName as RichCountName;
  return (RICH_COUNT_NAMES as readonly string[]).includes(scriptName)
    ? (scriptName as RichCountName)
    : null;
}

/** One programme's rich elements as the reference library reads them. */
export interface ReferenceRichCounts {
  /** What the library returns. */
  read: RichCounts;
  /**
   * Elements the library skipped by its own warnings (out of the DTD's order, or refused by its
   * reader: a `<rating>` without `<value>`, an empty `<sub-title>` or `<image>`). A reader that
   * keeps every element in document order holds read + skipped.
   */
  skipped: RichCounts;
  /**
   * Skips whose effect on the counts the library does not tell: a whole `<credits>` out of
   * order, refused or replaced by a second one (the script's `skipped.credits`, `twice.credits`).
   */
  uncounted: string[];
}

export function referenceRichCounts(programme: ReferenceProgramme): ReferenceRichCounts {
  const result: ReferenceRichCounts = {
    read: noRichCounts(),
    skipped: noRichCounts(),
    uncounted: [],
  };
  for (const [scriptName, n] of programme.counts) {
    const skipped = scriptName.startsWith('skipped.');
    const name = richNameOf(skipped ? scriptName.slice('skipped.'.length) : scriptName);
    if (scriptName === 'skipped.credits' || scriptName === 'twice.credits') {
      result.uncounted.push(`${scriptName}=${n}`);
    } else if (name !== null) {
      const into = skipped ? result.skipped : result.read;
      into[name] += n;
      if (name.startsWith('credits.')) into.credits += n;
    }
  }
  return result;
}

/**
 * Names programmes alike on both sides: channel, start (seconds since the epoch, UTC) and the
 * how-manieth programme of that channel and start it is in file order (guides repeat programmes).
 */
export class ProgrammeKeys {
  private readonly seen = new Map<string, number>();

  next(channel: string, startSeconds: number | null): string {
    const slot = `${channel}\t${startSeconds ?? 'no start'}`;
    const n = (this.seen.get(slot) ?? 0) + 1;
    this.seen.set(slot, n);
    return `${slot}\t#${n}`;
  }
}

/** How Onair's counts of one file compare with the reference library's. */
export interface RichComparison {
  /** Programmes the library read. */
  programmes: number;
  /** Totals over the file. */
  reference: RichCounts;
  skippedByReference: RichCounts;
  onair: RichCounts;
  /** Programmes whose counts differ, or that one side lacks, described (at most 20). */
  differences: string[];
  differing: number;
}

/** Onair's counts of a guide file's rich elements, by ProgrammeKeys key. */
export type OnairRichCounts = (file: string) => Promise<Map<string, RichCounts>>;

/**
 * Reads a guide file with the reference library (times without offset in `zone`) and with
 * `onair`, and compares their counts of its rich elements programme by programme.
 */
export async function compareRichCounts(
  file: string,
  zone: string,
  onair: OnairRichCounts,
): Promise<
  | { accepted: true; comparison: RichComparison; cached: boolean }
  | { accepted: false; error: string }
> {
  const [view, ours] = await Promise.all([referenceView(file, zone), onair(file)]);
  if (!view.accepted) return { accepted: false, error: view.error };
  return {
    accepted: true,
    comparison: compareRichCountsOf(view.programmes, ours),
    cached: view.cached,
  };
}

/**
 * Onair's counts must equal the reference library's read + skipped (see ReferenceRichCounts)
 * for every programme, keyed alike (ProgrammeKeys).
 */
export function compareRichCountsOf(
  reference: readonly ReferenceProgramme[],
  onair: ReadonlyMap<string, RichCounts>,
): RichComparison {
  const result: RichComparison = {
    programmes: reference.length,
    reference: noRichCounts(),
    skippedByReference: noRichCounts(),
    onair: noRichCounts(),
    differences: [],
    differing: 0,
  };
  const differ = (text: string) => {
    result.differing++;
    if (result.differences.length < 20) result.differences.push(text);
  };
  const keys = new ProgrammeKeys();
  const compared = new Set<string>();
  for (const programme of reference) {
    const key = keys.next(programme.channel, programme.start);
    compared.add(key);
    const { read, skipped, uncounted } = referenceRichCounts(programme);
    addRichCounts(result.reference, read);
    addRichCounts(result.skippedByReference, skipped);
    const ours = onair.get(key);
    const where = key.replaceAll('\t', ' ');
    if (ours === undefined) {
      differ(`${where}: read by the library, not by Onair`);
      continue;
    }
    addRichCounts(result.onair, ours);
    const wrong = RICH_COUNT_NAMES.filter((name) => ours[name] !== read[name] + skipped[name]);
    if (wrong.length > 0 || uncounted.length > 0) {
      differ(
        `${where}: ` +
          [
            ...wrong.map(
              (name) =>
                `${name} Onair ${ours[name]}, library ${read[name]}` +
                (skipped[name] > 0 ? ` + ${skipped[name]} skipped` : ''),
            ),
            ...uncounted.map((what) => `library ${what}: its count is unknown`),
          ].join('; '),
      );
    }
  }
  for (const [key, ours] of onair) {
    if (compared.has(key)) continue;
    addRichCounts(result.onair, ours);
    differ(`${key.replaceAll('\t', ' ')}: read by Onair, not by the library`);
  }
  return result;
}

/** Files without offsets whose SOURCES.md says local time is +08:00 (read so by both sides). */
export const LOCAL_TIME: Record<string, { assumeOffsetMinutes: number; zone: string }> = {
  'epgmn_mn_weekly_epg_updated.xml': { assumeOffsetMinutes: 480, zone: 'Asia/Ulaanbaatar' },
  'burningc4_cn_guide.xml': { assumeOffsetMinutes: 480, zone: 'Asia/Shanghai' },
};
