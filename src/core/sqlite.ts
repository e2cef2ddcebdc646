import { chmodSync, closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { makeDirectory } from './directory.js';

/**
 * Opens a SQLite file that holds private data (keys, secrets, event bodies): the file is created
 * 0600 in a 0700 directory before SQLite touches it, then the pragmas are applied.
 */
export function openPrivateDatabase(file: string, pragmas: string): DatabaseSync {
  makeDirectory(dirname(file), 0o700);
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new DatabaseSync(file);
  db.exec(pragmas);
  return db;
}

/** Each statement prepared once, on first use. */
export class StatementCache {
  private readonly statements = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {}

  get(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** Runs `work` in one IMMEDIATE transaction: committed if it returns, rolled back if it throws. */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
