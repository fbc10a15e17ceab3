import { Command } from 'commander';
import type { Channel } from '../../domain/channel.js';
import type { Store } from '../../storage/store.js';
import {
  CliError,
  printResult,
  requireChannels,
  withStore,
  type CliContext,
} from '../cli-context.js';

/** A channel as the playground commands print it. */
function channelJson(channel: Channel) {
  return { id: channel.id, name: channel.name, country: channel.country };
}

function describeChannel(channel: Channel): string {
  return `${channel.name} (${channel.country}, ${channel.id})`;
}

/** The marked channels by id: names for the messages. */
async function markedById(store: Store): Promise<Map<string, Channel>> {
  return new Map((await store.playground.listChannels()).map((c) => [c.id, c]));
}

/** `onair playground …`: which channels the public playground previews. */
export function playgroundCommand(ctx: CliContext): Command {
  const playground = new Command('playground').description(
    'choose the channels the public playground previews (today and tomorrow of their schedules)',
  );

  playground
    .command('list')
    .description('list the channels in the playground')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const channels = await store.playground.listChannels();
        printResult(ctx, opts.json === true, channels.map(channelJson), () =>
          channels.length === 0
            ? 'No channels in the playground. Add some with: bin/onair playground add <channel id or XMLTV id>'
            : [
                ...channels.map((c) => `${c.id}  ${c.country.padEnd(3)}  ${c.name}`),
                `${channels.length} channel(s) in the playground.`,
              ].join('\n'),
        );
      });
    });

  playground
    .command('add')
    .description('add channels to the playground')
    .argument('<channel...>', 'channel ids (UUID) or XMLTV channel ids')
    .option('--json', 'print JSON')
    .action(async (names: string[], opts: { json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const ids = await requireChannels(store, names, '; nothing changed');
        const added: string[] = [];
        const already: string[] = [];
        for (const id of ids) {
          const outcome = await store.playground.add(id, nowMs);
          if (outcome === 'no-such-channel') throw new CliError(`channel ${id} was just removed`);
          (outcome === 'added' ? added : already).push(id);
        }
        const marked = await markedById(store);
        const list = (of: string[]) =>
          of.flatMap((id) => {
            const channel = marked.get(id);
            return channel === undefined ? [] : [channel];
          });
        printResult(
          ctx,
          opts.json === true,
          { added: list(added).map(channelJson), alreadyThere: list(already).map(channelJson) },
          () =>
            [
              ...list(added).map((c) => `Added to the playground: ${describeChannel(c)}.`),
              ...list(already).map((c) => `Already in the playground: ${describeChannel(c)}.`),
            ].join('\n'),
        );
      });
    });

  playground
    .command('remove')
    .description('remove channels from the playground')
    .argument('<channel...>', 'channel ids (UUID) or XMLTV channel ids')
    .option('--json', 'print JSON')
    .action(async (names: string[], opts: { json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const ids = await requireChannels(store, names, '; nothing changed');
        const marked = await markedById(store);
        const removed: Channel[] = [];
        const notThere: string[] = [];
        for (const id of ids) {
          const channel = marked.get(id);
          if (channel !== undefined && (await store.playground.remove(id))) removed.push(channel);
          else notThere.push(id);
        }
        printResult(
          ctx,
          opts.json === true,
          { removed: removed.map(channelJson), notThere: notThere.map((id) => ({ id })) },
          () =>
            [
              ...removed.map((c) => `Removed from the playground: ${describeChannel(c)}.`),
              ...notThere.map((id) => `Was not in the playground: ${id}.`),
            ].join('\n'),
        );
      });
    });

  return playground;
}
