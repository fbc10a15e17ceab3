import { Command, InvalidArgumentError } from 'commander';
import {
  createAuditedFeed,
  deleteAuditedFeed,
  regenerateAuditedFeedToken,
} from '../../accounts/feed-service.js';
import {
  DAYS_AHEAD,
  DAYS_BACK,
  feedUrls,
  FeedSettingsError,
  type Feed,
  type Lineup,
  wholeIn,
} from '../../domain/feed.js';
import { countOf } from '../../domain/plural.js';
import { FeedLimitError } from '../../storage/errors.js';
import type { Store } from '../../storage/store.js';
import {
  CliError,
  collectChannel,
  isoOrNull,
  printResult,
  requireChannels,
  withStore,
  type CliContext,
} from '../cli-context.js';
import { parseCountryOption, parseEmail } from '../option-parsers.js';
import { requireAccount } from '../account-output.js';

/** A feed as listed: never its token (only its hash is kept). */
function feedJson(feed: Feed) {
  return {
    id: feed.id,
    name: feed.name,
    lineup:
      feed.lineup.kind === 'country'
        ? { country: feed.lineup.country }
        : { channels: feed.lineup.channelIds },
    daysAhead: feed.daysAhead,
    daysBack: feed.daysBack,
    createdAt: isoOrNull(feed.createdAt),
    updatedAt: isoOrNull(feed.updatedAt),
  };
}

/**
 * An option's whole number of days in `range`, refused as a usage error (exit code 2, the hint
 * to ask for help) in the words of the feed rules (wholeIn), which check it again.
 */
function daysIn(range: { min: number; max: number }, what: string) {
  return (text: string): number => {
    const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
    const problem = wholeIn(value, range, what);
    if (problem !== null) throw new InvalidArgumentError(`${problem}, not "${text}"`);
    return value;
  };
}

/** The store's and the rules' refusals as the operator's one-line errors. */
async function asCliErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FeedSettingsError || error instanceof FeedLimitError) {
      throw new CliError(error.message);
    }
    throw error;
  }
}

async function requireFeed(store: Store, id: string): Promise<Feed> {
  const feed = await store.feeds.findFeed(id.trim());
  if (feed === null) throw new CliError(`no feed with id ${id}`);
  return feed;
}

/** `onair feeds …`: an account's XMLTV guide feeds for media servers. */
export function feedsCommand(ctx: CliContext): Command {
  const feeds = new Command('feeds').description("manage accounts' XMLTV guide feeds");
  const issued = (feed: Feed, token: string) => {
    const urls = feedUrls(ctx.config.publicUrl, token);
    if (!ctx.config.publicUrlExplicit) {
      // A server started with another PORT (or behind a proxy) is not where this URL points.
      ctx.stderr.write(
        `onair: note: PUBLIC_URL is not set, so the URL starts with ${ctx.config.publicUrl} (HOST and PORT as this command has them); give the command the server's PUBLIC_URL, or put the token after the server's own address\n`,
      );
    }
    return { ...feedJson(feed), url: urls.xml, urlGz: urls.gz, token };
  };

  feeds
    .command('create')
    .description('create a feed and print its URL (shown only this once)')
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .requiredOption('--name <name>', 'a label for the feed')
    .option('--country <code>', 'every channel of a country, in name order', parseCountryOption)
    .option(
      '--channel <id>',
      'a channel (Onair or XMLTV id), repeated in lineup order',
      collectChannel,
      [],
    )
    .option(
      '--days-ahead <n>',
      `days after now (${DAYS_AHEAD.min}–${DAYS_AHEAD.max})`,
      daysIn(DAYS_AHEAD, 'days ahead'),
      DAYS_AHEAD.default,
    )
    .option(
      '--days-back <n>',
      `days before today (${DAYS_BACK.min}–${DAYS_BACK.max})`,
      daysIn(DAYS_BACK, 'days back'),
      DAYS_BACK.default,
    )
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        email: string;
        name: string;
        country?: string;
        channel: string[];
        daysAhead: number;
        daysBack: number;
        json?: boolean;
      }) => {
        if ((opts.country === undefined) === (opts.channel.length === 0)) {
          throw new CliError('give either --country or one or more --channel');
        }
        const nowMs = ctx.now();
        await withStore(ctx, async (store) => {
          const account = await requireAccount(store, opts.email);
          const lineup: Lineup =
            opts.country === undefined
              ? { kind: 'channels', channelIds: await requireChannels(store, opts.channel) }
              : { kind: 'country', country: opts.country };
          const created = await asCliErrors(() =>
            createAuditedFeed(
              store,
              account.id,
              { name: opts.name, lineup, daysAhead: opts.daysAhead, daysBack: opts.daysBack },
              'operator',
              nowMs,
            ),
          );
          const data = issued(created.feed, created.token);
          printResult(ctx, opts.json === true, data, () =>
            [
              `Created feed ${created.feed.id} (${JSON.stringify(created.feed.name)}) for ${account.email}.`,
              'Its URL holds its secret; store it now, it will not be shown again:',
              data.url,
            ].join('\n'),
          );
        });
      },
    );

  feeds
    .command('list')
    .description("list an account's feeds (never their URLs)")
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const account = await requireAccount(store, opts.email);
        const list = await store.feeds.listFeeds(account.id);
        printResult(ctx, opts.json === true, list.map(feedJson), () =>
          list.length === 0
            ? `No feeds for ${account.email}.`
            : list
                .map((f) => {
                  const lineup =
                    f.lineup.kind === 'country'
                      ? `country ${f.lineup.country}`
                      : countOf(f.lineup.channelIds.length, 'channel');
                  return `${f.id}  ${JSON.stringify(f.name)}  ${lineup}  -${f.daysBack}d +${f.daysAhead}d`;
                })
                .join('\n'),
        );
      });
    });

  feeds
    .command('regenerate')
    .description('give a feed a new URL; the old one is refused from now on')
    .requiredOption('--id <id>', 'id of the feed (see feeds list)')
    .option('--json', 'print JSON')
    .action(async (opts: { id: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const feed = await requireFeed(store, opts.id);
        const renewed = await regenerateAuditedFeedToken(store, feed, 'operator', ctx.now());
        if (renewed === null) throw new CliError(`no feed with id ${opts.id}`);
        const data = issued(renewed.feed, renewed.token);
        printResult(
          ctx,
          opts.json === true,
          data,
          () => `New URL of feed ${feed.id}:\n${data.url}`,
        );
      });
    });

  feeds
    .command('delete')
    .description('delete a feed; its URL is refused from now on')
    .requiredOption('--id <id>', 'id of the feed (see feeds list)')
    .option('--json', 'print JSON')
    .action(async (opts: { id: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const feed = await requireFeed(store, opts.id);
        await deleteAuditedFeed(store, feed, 'operator', ctx.now());
        printResult(
          ctx,
          opts.json === true,
          { id: feed.id, deleted: true },
          () => `Feed ${feed.id} deleted.`,
        );
      });
    });

  return feeds;
}
