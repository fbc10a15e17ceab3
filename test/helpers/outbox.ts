import { existsSync, readdirSync } from 'node:fs';

/** The mails in an outbox folder, oldest first; a mail still being written is not listed. */
export function outboxFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.eml'))
        .sort()
    : [];
}
