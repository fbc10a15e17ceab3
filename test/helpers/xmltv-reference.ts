import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
    const [channel = '', start = '', stop = '', digest = ''] = line.split('\t');
    programmes.push({
      channel: unescape(channel),
      start: Number(start),
      stop: stop === '' ? null : Number(stop),
      digest,
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
    raw = await runScript(file, zone);
    mkdirSync(cacheDir(), { recursive: true });
    writeFileSync(cached, JSON.stringify(raw));
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
