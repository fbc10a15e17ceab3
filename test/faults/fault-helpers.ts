import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { ONAIR_BIN, type CliSandbox } from '../helpers/cli-runner.js';

/** `bin/onair …` as a child process the test can kill; resolves its exit with the output. */
export function spawnCli(
  cli: CliSandbox,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
} {
  const child = spawn(ONAIR_BIN, args, { cwd: cli.dir, env: { ...cli.env, ...extraEnv } });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

async function getJson<T>(url: string, key: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`${url} → ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The catalogue as the API shows it, summed up: what can be compared between runs. */
export interface CatalogueView {
  /** SHA-256 of every country, channel and programme (days=all), without ingest times. */
  hash: string;
  channels: number;
  programmes: number;
  /** Programmes by the first word of their title ("Old", "New"): a mix shows as both. */
  byTitle: Record<string, number>;
}

/** Reads the whole catalogue through the API of a running server. */
export async function catalogueView(url: string, key: string): Promise<CatalogueView> {
  const hash = createHash('sha256');
  const byTitle: Record<string, number> = {};
  let channels = 0;
  let programmes = 0;
  const { countries } = await getJson<{ countries: { country: string }[] }>(
    `${url}/api/v1/countries`,
    key,
  );
  hash.update(JSON.stringify(countries));
  for (const { country } of countries) {
    const list = await getJson<{ channels: { id: string }[] }>(
      `${url}/api/v1/countries/${country}/channels`,
      key,
    );
    hash.update(JSON.stringify(list));
    for (const channel of list.channels) {
      channels++;
      const schedule = await getJson<{
        programmes: { id: string; start: string; stop: string; title: string; desc: string }[];
      }>(`${url}/api/v1/channels/${channel.id}/programmes?days=all`, key);
      for (const p of schedule.programmes) {
        programmes++;
        const word = p.title.split(' ')[0] ?? '';
        byTitle[word] = (byTitle[word] ?? 0) + 1;
        // updatedAt and sourceFileId depend on when an ingest ran: left out.
        hash.update(JSON.stringify([channel.id, p.id, p.start, p.stop, p.title, p.desc]));
      }
    }
  }
  return { hash: hash.digest('hex'), channels, programmes, byTitle };
}

/** A guide of `channels` × `perChannel` programmes whose titles all start with `word`. */
export function guideText(word: string, channels: number, perChannel: number): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n'];
  for (let c = 0; c < channels; c++) {
    parts.push(`<channel id="fault-${c}.ie"><display-name>Fault ${c}</display-name></channel>\n`);
  }
  const base = Date.UTC(2026, 7, 1);
  const time = (ms: number) =>
    `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
  for (let c = 0; c < channels; c++) {
    for (let p = 0; p < perChannel; p++) {
      const start = base + p * 1_800_000;
      parts.push(
        `<programme start="${time(start)}" stop="${time(start + 1_800_000)}" channel="fault-${c}.ie">` +
          `<title>${word} show ${p}</title><desc>${word} description of show ${p} on channel ${c}, long enough to weigh something.</desc></programme>\n`,
      );
    }
  }
  parts.push('</tv>\n');
  return parts.join('');
}
