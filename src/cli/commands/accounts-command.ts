import { Command, Option } from 'commander';
import { accountStatus, type AccountStatus } from '../../accounts/account-service.js';
import type { Account, ApiKey, AuditEvent } from '../../domain/account.js';
import type { Store } from '../../storage/store.js';
import { DuplicateAccountError } from '../../storage/errors.js';
import { CliError, isoOrNull, printResult, withStore, type CliContext } from '../cli-context.js';
import {
  parseBoolean,
  parseEmail,
  parseIsoInstant,
  parseIsoInstantOrNone,
  parseRateLimit,
  parseRateLimitOrDefault,
} from '../option-parsers.js';
import { apiKeyJson, formatKeyLines, requireAccount } from '../account-output.js';

/** Records an operator's change of an account in its audit trail. */
function auditOperator(
  store: Store,
  accountId: string,
  action: string,
  details: Record<string, unknown>,
  nowMs: number,
): Promise<AuditEvent> {
  return store.accounts.recordAudit({ accountId, actor: 'operator', action, details }, nowMs);
}

/** The fields `accounts set` and `grant` changed, as `{ field: { from, to } }` (times in ISO). */
function changedFields(before: Account, after: Account): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (before.accessUntil !== after.accessUntil) {
    changes.accessUntil = { from: isoOrNull(before.accessUntil), to: isoOrNull(after.accessUntil) };
  }
  if (before.rateLimit !== after.rateLimit) {
    changes.rateLimit = { from: before.rateLimit, to: after.rateLimit };
  }
  if (before.disabled !== after.disabled) {
    changes.disabled = { from: before.disabled, to: after.disabled };
  }
  if (before.verifiedAt !== after.verifiedAt) {
    changes.verifiedAt = { from: isoOrNull(before.verifiedAt), to: isoOrNull(after.verifiedAt) };
  }
  return changes;
}

function auditJson(event: AuditEvent) {
  return {
    at: isoOrNull(event.at),
    actor: event.actor,
    action: event.action,
    details: event.details,
  };
}

function formatAudit(events: AuditEvent[]): string[] {
  if (events.length === 0) return ['  audit           none'];
  return [
    '  audit',
    ...events.map(
      (e) =>
        `    ${isoOrNull(e.at)}  ${e.actor.padEnd(8)}  ${e.action}${Object.keys(e.details).length === 0 ? '' : `  ${JSON.stringify(e.details)}`}`,
    ),
  ];
}

function accountJson(status: AccountStatus, keys?: ApiKey[]) {
  return {
    id: status.id,
    email: status.email,
    verified: status.verifiedAt !== null,
    verifiedAt: isoOrNull(status.verifiedAt),
    trialEndsAt: isoOrNull(status.trialEndsAt),
    accessUntil: isoOrNull(status.accessUntil),
    effectiveUntil: isoOrNull(status.effectiveUntil),
    eligibleNow: status.eligibleNow,
    refusal: status.refusal,
    rateLimit: status.rateLimit,
    rateLimitOverride: status.rateLimitOverride,
    disabled: status.disabled,
    createdAt: isoOrNull(status.createdAt),
    ...(keys === undefined ? {} : { keys: keys.map(apiKeyJson) }),
  };
}

function describeAccess(status: AccountStatus): string {
  if (status.eligibleNow) return `yes, until ${isoOrNull(status.effectiveUntil)}`;
  switch (status.refusal) {
    case 'ACCOUNT_DISABLED':
      return 'no: the account is disabled';
    case 'EMAIL_NOT_VERIFIED':
      return 'no: the e-mail address is not verified';
    default:
      return status.effectiveUntil === null
        ? 'no: no trial or paid access'
        : `no: access ended ${isoOrNull(status.effectiveUntil)}`;
  }
}

function formatAccount(status: AccountStatus, keys?: ApiKey[]): string {
  const lines = [
    `Account ${status.email}`,
    `  id              ${status.id}`,
    `  verified        ${status.verifiedAt === null ? 'no' : isoOrNull(status.verifiedAt)}`,
    `  trial ends      ${isoOrNull(status.trialEndsAt) ?? '-'}`,
    `  access until    ${isoOrNull(status.accessUntil) ?? '-'}`,
    `  API access now  ${describeAccess(status)}`,
    `  rate limit      ${status.rateLimit}/s${status.rateLimitOverride === null ? ' (default)' : ''}`,
    `  disabled        ${status.disabled ? 'yes' : 'no'}`,
  ];
  if (keys !== undefined) {
    lines.push(`  keys            ${keys.length === 0 ? 'none' : keys.length}`);
    for (const line of formatKeyLines(keys)) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}

/** `onair accounts …`: create, change, list and show customer accounts. */
export function accountsCommand(ctx: CliContext): Command {
  const accounts = new Command('accounts').description('manage customer accounts');

  accounts
    .command('create')
    .description('create an account')
    .requiredOption('--email <address>', 'e-mail address of the account holder', parseEmail)
    .addOption(
      new Option(
        '--verified',
        'mark the e-mail address verified now (starts the 7-day trial)',
      ).conflicts('verifiedAt'),
    )
    .option('--verified-at <iso>', 'mark the address verified at this time', parseIsoInstant)
    .option('--access-until <iso>', 'paid access until this time', parseIsoInstant)
    .option('--rate-limit <n>', 'requests per second for this account (default 3)', parseRateLimit)
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        email: string;
        verified?: boolean;
        verifiedAt?: number;
        accessUntil?: number;
        rateLimit?: number;
        json?: boolean;
      }) => {
        const nowMs = ctx.now();
        // A verification is a past event: a later time would start the trial in the future.
        if (opts.verifiedAt !== undefined && opts.verifiedAt > nowMs) {
          throw new CliError(
            `--verified-at ${isoOrNull(opts.verifiedAt)} is in the future: give a time up to now (${isoOrNull(nowMs)}), or --verified for now`,
          );
        }
        await withStore(ctx, async (store) => {
          let account: Account;
          try {
            account = await store.accounts.createAccount(
              {
                email: opts.email,
                verifiedAt: opts.verifiedAt ?? (opts.verified ? nowMs : null),
                accessUntil: opts.accessUntil ?? null,
                rateLimit: opts.rateLimit ?? null,
              },
              nowMs,
            );
          } catch (error) {
            if (error instanceof DuplicateAccountError) throw new CliError(error.message);
            throw error;
          }
          await auditOperator(
            store,
            account.id,
            'account.created',
            {
              verifiedAt: isoOrNull(account.verifiedAt),
              accessUntil: isoOrNull(account.accessUntil),
              rateLimit: account.rateLimit,
            },
            nowMs,
          );
          const status = accountStatus(account, nowMs);
          printResult(ctx, opts.json === true, accountJson(status), () => formatAccount(status));
        });
      },
    );

  accounts
    .command('grant')
    .description('give paid access until a time (sets access_until; payment arranged offline)')
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .requiredOption('--until <iso>', 'paid access until this time', parseIsoInstant)
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; until: number; json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const before = await requireAccount(store, opts.email);
        const account = await store.accounts.updateAccount(
          before.id,
          { accessUntil: opts.until },
          nowMs,
        );
        await auditOperator(
          store,
          account.id,
          'access.granted',
          { from: isoOrNull(before.accessUntil), to: isoOrNull(account.accessUntil) },
          nowMs,
        );
        if (opts.until <= nowMs) {
          // Allowed (it ends paid access), but seldom meant: a year typed wrong, say.
          ctx.stderr.write(
            `onair: note: ${new Date(opts.until).toISOString()} has passed, so the account has no paid access now\n`,
          );
        }
        const status = accountStatus(account, nowMs);
        printResult(ctx, opts.json === true, accountJson(status), () => formatAccount(status));
      });
    });

  accounts
    .command('set')
    .description("change an account's verification, access, rate limit or disabled state")
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .option(
      '--access-until <iso|none>',
      'paid access until this time, or none',
      parseIsoInstantOrNone,
    )
    .option(
      '--rate-limit <n|default>',
      'requests per second, or default (3)',
      parseRateLimitOrDefault,
    )
    .option('--disabled <true|false>', 'disable or re-enable the account', parseBoolean)
    .option(
      '--verified',
      'mark the e-mail address verified now, unless it is (starts the 7-day trial once)',
    )
    .option('--json', 'print JSON')
    .action(
      async (
        opts: {
          email: string;
          verified?: boolean;
          accessUntil?: number | 'none';
          rateLimit?: number | 'default';
          disabled?: boolean;
          json?: boolean;
        },
        command: Command,
      ) => {
        if (
          opts.verified !== true &&
          opts.accessUntil === undefined &&
          opts.rateLimit === undefined &&
          opts.disabled === undefined
        ) {
          // A usage error (exit code 2, the hint to ask for help), as a missing option is.
          command.error(
            'nothing to change: give --verified, --access-until, --rate-limit or --disabled',
          );
        }
        const nowMs = ctx.now();
        await withStore(ctx, async (store) => {
          const existing = await requireAccount(store, opts.email);
          // As a sign-in link would: the first verification starts the trial, a later one
          // changes nothing.
          if (opts.verified === true) await store.accounts.markVerified(existing.id, nowMs);
          const account = await store.accounts.updateAccount(
            existing.id,
            {
              accessUntil: opts.accessUntil === 'none' ? null : opts.accessUntil,
              rateLimit: opts.rateLimit === 'default' ? null : opts.rateLimit,
              disabled: opts.disabled,
            },
            nowMs,
          );
          const changes = changedFields(existing, account);
          if (Object.keys(changes).length > 0) {
            await auditOperator(store, account.id, 'account.changed', changes, nowMs);
          }
          const status = accountStatus(account, nowMs);
          printResult(ctx, opts.json === true, accountJson(status), () => formatAccount(status));
        });
      },
    );

  accounts
    .command('list')
    .description('list all accounts')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const statuses = (await store.accounts.listAccounts()).map((a) => accountStatus(a, nowMs));
        printResult(
          ctx,
          opts.json === true,
          statuses.map((s) => accountJson(s)),
          () =>
            statuses.length === 0
              ? 'No accounts.'
              : statuses
                  .map(
                    (s) =>
                      `${s.email}  ${s.eligibleNow ? `eligible until ${isoOrNull(s.effectiveUntil)}` : `not eligible (${s.refusal})`}  ${s.rateLimit}/s`,
                  )
                  .join('\n'),
        );
      });
    });

  accounts
    .command('show')
    .description('show an account: trial end, access_until, eligibility now, keys, audit trail')
    .requiredOption('--email <address>', 'e-mail address of the account', parseEmail)
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      const nowMs = ctx.now();
      await withStore(ctx, async (store) => {
        const account = await requireAccount(store, opts.email);
        const keys = await store.accounts.listApiKeys(account.id);
        const audit = await store.accounts.listAudit(account.id);
        const status = accountStatus(account, nowMs);
        printResult(
          ctx,
          opts.json === true,
          { ...accountJson(status, keys), audit: audit.map(auditJson) },
          () => [formatAccount(status, keys), ...formatAudit(audit)].join('\n'),
        );
      });
    });

  return accounts;
}
