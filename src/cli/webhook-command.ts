import type { Network } from '../api/network.js';
import { BaseCommand } from './base-command.js';
import { currentProfileName, readConfig } from '../config/config-file.js';
import { parseStoreLocation, type StoreLocation } from '../config/webhook-store.js';
import { ConfigError } from '../core/errors.js';
import { secretOnCommandLine } from '../flags/secret.js';
import { defaultStorePath } from '../webhooks/sqlite-store.js';

/**
 * A `svc webhooks …` command: takes the webhook secret from --secret, SVC_WEBHOOK_SECRET or the
 * profile, and the event store from --store, SVC_WEBHOOK_STORE or the profile.
 */
export abstract class WebhookCommand<Result, Line = never> extends BaseCommand<Result, Line> {
  /**
   * The event store: --store, else SVC_WEBHOOK_STORE, else the profile's webhook_store, else the
   * default SQLite file. A connection string is redacted from everything this run prints.
   */
  protected async webhookStore(fromFlag: string | undefined, profile: string | undefined): Promise<StoreLocation> {
    const setting = await this.storeSetting({ name: '--store', value: fromFlag }, 'SVC_WEBHOOK_STORE', 'webhook_store', profile);
    if (!setting) return parseStoreLocation(defaultStorePath(this.paths.dataDir), 'the default');
    return parseStoreLocation(setting.value, setting.source);
  }

  /** The profile this run uses: --profile, else SVC_PROFILE, else the current one. */
  protected async profileName(fromFlag: string | undefined): Promise<string> {
    return currentProfileName(await readConfig(this.paths.configFile), fromFlag, this.io.env);
  }

  /**
   * The secrets to sign or verify with: --secret, else SVC_WEBHOOK_SECRET, else the profile's
   * webhook_secret (which `svc sandbox start` writes in the sandbox's profile); none, when not
   * `required` and not given. Redacted from everything this run prints.
   */
  protected async webhookSecrets(fromFlag: string[] | undefined, profile: string | undefined, required = true): Promise<string[]> {
    let secrets: string[];
    if (fromFlag?.length) {
      this.warning(secretOnCommandLine('a secret given with --secret', 'SVC_WEBHOOK_SECRET'));
      secrets = fromFlag;
    } else if (this.io.env.SVC_WEBHOOK_SECRET) {
      // Spaces next to a comma are separators; those around the whole value are kept, so they can be reported.
      secrets = this.io.env.SVC_WEBHOOK_SECRET.split(/ *, */).filter((secret) => secret !== '');
    } else {
      const config = await readConfig(this.paths.configFile);
      const saved = config.profiles[currentProfileName(config, profile, this.io.env)]?.webhook_secret;
      if (saved !== undefined) secrets = [saved];
      else if (!required) return [];
      else {
        throw new ConfigError(
          'missing_webhook_secret',
          'no webhook secret',
          "set SVC_WEBHOOK_SECRET (several separated by commas during a rotation), pass --secret, or save it in the profile with `svc config set webhook_secret`; the profile `svc sandbox start` writes has the sandbox's, which `svc sandbox keys --reveal` shows",
        );
      }
    }
    this.secrets.push(...secrets);
    return secrets;
  }

  /** The network deliveries go through: the environment's proxies, and the receivers' CA (--ca-cert) trusted beside the system's. */
  protected receiverNetwork(caCertPath: string | undefined): Promise<Network> {
    return this.network({ caCert: caCertPath === undefined ? undefined : { path: caCertPath, source: '--ca-cert' } });
  }

  /** Warns of a secret with white space around it: the sender's copy almost certainly has none. */
  protected warnOfWhitespace(secrets: readonly string[]): void {
    for (const [index, secret] of secrets.entries()) {
      if (secret.trim() !== secret)
        this.warning(`webhook secret #${index + 1} has white space around it; signatures made with the secret itself will not match`);
    }
  }
}
