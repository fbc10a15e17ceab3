/**
 * Compiled, never run (`npm run lint`, with exactOptionalPropertyTypes): the client's options
 * take what an app holds, as the README writes it. An option left `undefined` is as left out,
 * and a readonly list of channels goes wherever channels do.
 */
import { OnairClient } from '../src/index.js';

export async function readmeSearchPaging(onair: OnairClient): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await onair.searchProgrammes('star trek', { country: 'UK', cursor });
    for (const { channel, programme } of page.results) console.log(programme.start, channel.name);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
}

export async function oneListOfChannels(onair: OnairClient, ids: readonly string[]) {
  const limit: number | undefined = undefined;
  await onair.guide({ channels: ids });
  await onair.now({ channels: ids });
  await onair.searchProgrammes('news', { channels: ids, limit });
  await onair.changes(null, { channels: ids, limit });
  await onair.guide({ country: 'UK', limit, offset: undefined });
  await onair.listProgrammes(ids[0] ?? '', { days: undefined });
  await onair.searchChannels('one', { country: undefined, signal: undefined });
  return new OnairClient({
    baseUrl: 'http://127.0.0.1:8080',
    apiKey: 'onair_x',
    retry: { retries: undefined, onRetry: undefined },
    timeoutMs: undefined,
  });
}
