import { countOf } from '../../domain/plural.js';
import { Command, InvalidArgumentError } from 'commander';
import { parseDuration } from '../../domain/duration.js';
import type { ChannelDetails, ChannelScheduleEnd } from '../../domain/channel.js';
import { CliError, isoOrNull, printResult, withStore, type CliContext } from '../cli-context.js';
import { parseChannelName, parseCountryOption } from '../option-parsers.js';

/** A channel as `channels list --json` shows it. */
export function channelJson(channel: ChannelDetails) {
  return {
    id: channel.id,
    xmltvId: channel.xmltvId,
    name: channel.name,
    icon: channel.icon,
    country: channel.country,
    needsReview: channel.needsReview,
    nameFixed: channel.nameFixed,
    countryFixed: channel.countryFixed,
    reviewedAt: isoOrNull(channel.reviewedAt),
  };
}

function formatChannel(channel: ChannelDetails): string {
  const marks = [
    channel.needsReview ? 'NEEDS REVIEW' : '',
    channel.nameFixed ? 'name fixed' : '',
    channel.countryFixed ? 'country fixed' : '',
  ].filter((m) => m !== '');
  return (
    `${channel.id}  ${channel.country.padEnd(3)} ${JSON.stringify(channel.name)}  (XMLTV id ${JSON.stringify(channel.xmltvId)})` +
    (marks.length > 0 ? `  [${marks.join(', ')}]` : '')
  );
}

function parseWithin(text: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new InvalidArgumentError(`"${text}" is not a duration like 24h or 2d`);
  return ms;
}

/** `onair channels …`: review the catalogue's channels and fix what an ingest inferred. */
export function channelsCommand(ctx: CliContext): Command {
  const channels = new Command('channels').description(
    'review channels: fix inferred countries and names, find schedules that ran out',
  );

  channels
    .command('list')
    .description('list channels by country, then name')
    .option('--needs-review', 'only channels flagged for review (inferred countries)')
    .option('--country <code>', 'only the channels of one country', parseCountryOption)
    .option('--json', 'print JSON')
    .action(async (opts: { needsReview?: boolean; country?: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const list = await store.channels.listChannels({
          country: opts.country ?? null,
          needsReview: opts.needsReview === true ? true : undefined,
        });
        printResult(ctx, opts.json === true, list.map(channelJson), () =>
          list.length === 0 ? 'No channels.' : list.map(formatChannel).join('\n'),
        );
      });
    });

  channels
    .command('set')
    .description("fix a channel's country or name, or mark it reviewed; later ingests keep the fix")
    .argument('<id>', "the channel's id (UUID) or its XMLTV id")
    .option('--country <code>', 'its country (clears the review flag)', parseCountryOption)
    .option('--name <name>', 'its name', parseChannelName)
    .option('--reviewed', 'confirm the channel as it is (its country in particular)')
    .option('--json', 'print JSON')
    .action(
      async (
        id: string,
        opts: { country?: string; name?: string; reviewed?: boolean; json?: boolean },
        command: Command,
      ) => {
        if (opts.country === undefined && opts.name === undefined && opts.reviewed !== true) {
          // A usage error (exit code 2, the hint to ask for help), as a missing option is.
          command.error('nothing to change: give --country, --name or --reviewed');
        }
        const nowMs = ctx.now();
        await withStore(ctx, async (store) => {
          const found = await store.channels.findChannel(id.trim());
          if (found === null) throw new CliError(`no channel with id or XMLTV id ${id.trim()}`);
          const channel = await store.channels.fixChannel(
            found.id,
            { country: opts.country, name: opts.name, reviewed: opts.reviewed === true },
            nowMs,
          );
          if (channel === null) throw new CliError(`channel ${found.id} was removed meanwhile`);
          printResult(ctx, opts.json === true, channelJson(channel), () =>
            [`Updated ${formatChannel(channel)}`, '  later ingests keep what was set here'].join(
              '\n',
            ),
          );
        });
      },
    );

  channels
    .command('stale')
    .description('list channels whose schedules have run out (latest programme already ended)')
    .option('--within <duration>', 'also those ending within this time, e.g. 24h', parseWithin)
    .option('--country <code>', 'only the channels of one country', parseCountryOption)
    .option('--include-empty', 'also channels without any programme')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        within?: number;
        country?: string;
        includeEmpty?: boolean;
        json?: boolean;
      }) => {
        const within = opts.within ?? 0;
        const nowMs = ctx.now();
        await withStore(ctx, async (store) => {
          const list: ChannelScheduleEnd[] = await store.channels.listScheduleEnds(nowMs + within, {
            country: opts.country ?? null,
            includeEmpty: opts.includeEmpty === true,
          });
          printResult(
            ctx,
            opts.json === true,
            list.map((c) => ({
              ...channelJson(c),
              programmes: c.programmes,
              scheduleEndsAt: isoOrNull(c.latestEndMs),
            })),
            () =>
              list.length === 0
                ? 'No channel has run out of schedule.'
                : list
                    .map(
                      (c) =>
                        `${c.id}  ${c.country.padEnd(3)} ${JSON.stringify(c.name)}  ` +
                        (c.latestEndMs === null
                          ? 'no programmes'
                          : `${c.latestEndMs <= nowMs ? 'ended' : 'ends'} ${isoOrNull(c.latestEndMs)} (${countOf(c.programmes, 'programme')})`),
                    )
                    .join('\n'),
          );
        });
      },
    );

  return channels;
}
