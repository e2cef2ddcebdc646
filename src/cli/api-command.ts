import type { Interfaces } from '@oclif/core';
import type { ApiClient } from '../api/client.js';
import { BaseCommand } from './base-command.js';
import { type Connection, connectionInput, missingKeyError, resolveConnection } from '../config/connection.js';
import { redactKey } from '../core/redaction.js';
import { connectionFlags } from '../flags/connection.js';
import { secretOnCommandLine } from '../flags/secret.js';
import { retryWaitLine } from '../ui/retry-wait.js';

export type ConnectionFlagValues = Interfaces.InferredFlags<typeof ApiCommand.baseFlags> & { 'admin-key'?: string | undefined };

/** A command that talks to the API: resolves the connection and builds the typed client. */
export abstract class ApiCommand<Result, Line = never> extends BaseCommand<Result, Line> {
  static override baseFlags = { ...BaseCommand.baseFlags, ...connectionFlags };

  /** Commands that change something set this: a live key then gets a LIVE mark on stderr. */
  static mutating = false;

  protected async connect(flags: ConnectionFlagValues, role: 'api_key' | 'admin_key' = 'api_key'): Promise<{ client: ApiClient; connection: Connection }> {
    for (const name of ['api-key', 'admin-key'] as const) {
      if (flags[name] !== undefined) {
        this.warning(secretOnCommandLine(`a key given with --${name}`, `SVC_${name.replace('-', '_').toUpperCase()} or the profile`));
      }
    }
    const connection = await resolveConnection({ ...connectionInput(flags), adminKey: flags['admin-key'] }, this.io.env);
    for (const key of [connection.apiKey, connection.adminKey]) if (key) this.secrets.push(key.value);
    const key = role === 'api_key' ? connection.apiKey : connection.adminKey;
    if (!key) throw missingKeyError(role, connection);
    if ((this.ctor as typeof ApiCommand).mutating && key.environment === 'live') {
      this.note(`LIVE  ${this.commandWords} acts on production with ${redactKey(key.value)}: real data, and it consumes credits`);
    }
    return { client: await this.openClient(flags, connection, key.value), connection };
  }

  /** A client on the same connection with another key (rotation verifies the new key and probes the old one). */
  protected async openClient(flags: ConnectionFlagValues, connection: Connection, key: string): Promise<ApiClient> {
    const { createApiClient } = await import('../api/client.js');
    return createApiClient({
      baseUrl: connection.baseUrl,
      key,
      network: await this.connectionNetwork(connection),
      timeoutMs: flags.timeout * 1000,
      retry: { retries: flags.retries },
      log: flags.verbose ? (line) => this.note(line) : undefined,
      // A wait of a second or more is said (--verbose says every retry already): a rate limit may hold a command for a minute.
      onRetryWait:
        flags.verbose || flags.retries === 0
          ? undefined
          : ({ request, attempt, delayMs, reason }) => {
              if (delayMs >= 1000) this.note(retryWaitLine(request.method, new URL(request.url).pathname, attempt, flags.retries + 1, delayMs, reason));
            },
    });
  }
}
