// Holds a write transaction (BEGIN IMMEDIATE) on the SQLite file given as the first argument
// for the milliseconds given as the second, from a process of its own (a test's thread may
// block waiting for it). Says "holding" on stdout once the lock is held.
import { setTimeout } from 'node:timers';
import process from 'node:process';
import Database from 'better-sqlite3';

const [path, ms] = process.argv.slice(2);
const db = new Database(path);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('holding\n');
setTimeout(() => {
  db.exec('COMMIT');
  db.close();
}, Number(ms));
