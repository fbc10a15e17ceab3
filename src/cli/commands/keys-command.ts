import { Command } from 'commander';
import {
  cleanKeyName,
  issueAuditedApiKey,
  MAX_KEY_NAME_LENGTH,
  revokeAuditedApiKey,
  uncutKeyName,
} from '../../accounts/account-service.js';
import { CliError, isoOrNull, printResult, withStore, type CliContext } from '../cli-context.js';
import { parseEmail, parseKeyName } from '../option-parsers.js';
import { apiKeyJson, formatKeyLines, requireAccount } from '../account-output.js';

/** `onair keys …`: create, list and revoke API keys. */
export function keysCommand(ctx: CliContext): Command {
  const keys = new Command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key for an account and print it (shown only this once)')
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .option(
      '--name <name>',
      `a label for the key (at most ${MAX_KEY_NAME_LENGTH} characters)`,
      parseKeyName,
      'default',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; name: string; json?: boolean }) => {
      const nowMs = ctx.now();
      // As the web page: the name is cleaned and cut (cleanKeyName); here the cut is said.
      const name = cleanKeyName(opts.name);
      await withStore(ctx, async (store) => {
        const account = await requireAccount(store, opts.email);
        const issued = await issueAuditedApiKey(
          store.accounts,
          account.id,
          name,
          'operator',
          nowMs,
        );
        if (uncutKeyName(opts.name).length > MAX_KEY_NAME_LENGTH) {
          ctx.stderr.write(
            `onair: note: the key name was cut to its first ${MAX_KEY_NAME_LENGTH} characters\n`,
          );
        }
        const data = {
          ...apiKeyJson(issued.record),
          key: issued.key,
          accountId: account.id,
          email: account.email,
        };
        printResult(ctx, opts.json === true, data, () =>
          [
            `Created key ${issued.record.id} (${JSON.stringify(issued.record.name)}) for ${account.email}.`,
            'Store it now; it will not be shown again:',
            issued.key,
          ].join('\n'),
        );
      });
    });

  keys
    .command('list')
    .description("list an account's keys (never the secret)")
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      await withStore(ctx, async (store) => {
        const account = await requireAccount(store, opts.email);
        const list = await store.accounts.listApiKeys(account.id);
        printResult(ctx, opts.json === true, list.map(apiKeyJson), () =>
          list.length === 0 ? `No keys for ${account.email}.` : formatKeyLines(list).join('\n'),
        );
      });
    });

  keys
    .command('revoke')
    .description('revoke a key; it is refused from the next request on')
    .requiredOption('--id <id>', 'id of the key (see keys list)')
    .option('--json', 'print JSON')
    .action(async (opts: { id: string; json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const before = await store.accounts.findApiKey(opts.id.trim());
        if (before === null) throw new CliError(`no key with id ${opts.id}`);
        const key = await revokeAuditedApiKey(store.accounts, before, 'operator', nowMs);
        printResult(
          ctx,
          opts.json === true,
          apiKeyJson(key),
          () => `Key ${key.id} revoked at ${isoOrNull(key.revokedAt)}.`,
        );
      });
    });

  return keys;
}
