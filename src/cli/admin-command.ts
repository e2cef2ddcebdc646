import { ApiCommand, type ConnectionFlagValues } from './api-command.js';
import type { Key } from '../api/types.js';
import { adminKeyFlag } from '../flags/connection.js';

/** A `svc keys …` command: key management authenticates with the admin key (spec part 5). */
export abstract class AdminCommand<Result, Line = never> extends ApiCommand<Result, Line> {
  static override baseFlags = {
    ...ApiCommand.baseFlags,
    'admin-key': adminKeyFlag,
  };

  protected connectAdmin(flags: ConnectionFlagValues) {
    return this.connect(flags, 'admin_key');
  }

  /** The LIVE mark, for a change to a production key (the admin key itself is never a live key). */
  protected markLive(environment: Key['environment'], what: string): void {
    if (environment === 'live') this.note(`LIVE  ${this.commandWords} ${what}`);
  }
}
