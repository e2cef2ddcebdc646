import { readFile, writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { isLoopbackHost } from '../../api/base-url.js';
import { assertStated, STATED } from '../../spec/stated.js';
import { SvcCommand } from '../../cli/base-command.js';
import { CATALOGUE, type Level, selectChecks } from '../../conformance/catalogue.js';
import { DEFAULT_RESERVE, kitKeys, type KitKeys } from '../../conformance/kit-keys.js';
import { PACT_PROVIDER } from '../../conformance/contract-terms.js';
import { DEFAULT_RUN_LIMITS } from '../../conformance/run-budget.js';
import { readKitFixtures } from '../../conformance/fixtures.js';
import type { ReceiverCertificate } from '../../conformance/receiver.js';
import { type ConformanceJson, toJson, toJunit } from '../../conformance/report.js';
import { runErrorJunit } from '../../conformance/run-error-report.js';
import { ConfigError, ExitCode, SvcError } from '../../core/errors.js';
import { type Connection, connectionInput, resolveConnection } from '../../config/connection.js';
import type { Profile } from '../../config/config-file.js';
import { caCertFlag, caCertOnlyFlag } from '../../flags/ca-cert.js';
import { durationFlag } from '../../flags/duration.js';
import { requestRateFlag } from '../../flags/request-rate.js';
import { signatureEncodingFlag } from '../../flags/webhook.js';
import { secretFlag, secretOnCommandLine } from '../../flags/secret.js';
import { renderForPeople } from '../../ui/conformance.js';
import { helpText } from '../../cli/help-text.js';
import { asSvcError } from '../../cli/error-output.js';
import { redactText } from '../../core/redaction.js';

const KEY_FLAGS = {
  'api-key': 'SVC_API_KEY',
  'admin-key': 'SVC_ADMIN_KEY',
  'read-only-key': 'SVC_READ_ONLY_KEY',
  'ip-locked-key': 'SVC_IP_LOCKED_KEY',
  'other-workspace-key': 'SVC_OTHER_WORKSPACE_KEY',
  'other-workspace-admin-key': 'SVC_OTHER_WORKSPACE_ADMIN_KEY',
  'revocable-key': 'SVC_REVOCABLE_KEY',
  'rate-limit-key': 'SVC_RATE_LIMIT_KEY',
  'webhook-secret': 'SVC_WEBHOOK_SECRET',
} as const;

const keyFlag = (name: keyof typeof KEY_FLAGS, description: string) =>
  secretFlag({ description, instead: KEY_FLAGS[name], env: KEY_FLAGS[name], helpGroup: 'KEY' });

/** What `--json` prints. */
export type JsonResult = ConformanceJson;

export default class ContractVerify extends SvcCommand<JsonResult> {
  static override summary = 'Check an implementation of the API against the specification, for CI';

  static override description = helpText`
    Runs the Pact contracts of contracts/ (provider verification, with states set up through the public API) and
    probes for what Pact cannot express, against the implementation at --base-url, and reports one result: a table
    per part of the specification, --json, --junit.

    --level spec checks only what the specification states and accepts every choice it leaves open; --level strict
    also checks every assumption of openapi.yaml. A check whose input is not given (a read-only key, the webhook
    port…) is skipped, never passed. The kit deletes the reports and revokes the keys it made.

    What the specification leaves open in requests (applicant fields, the report's visa type and purpose, the
    upload's encoding) the kit takes from --fixtures, and sends openapi.yaml's shapes where it is not given; so is
    an input the implementation fails a report for (failing_report), which the specification does not state. When
    the kit's own setup is refused (its applicant, its report, its upload), the checks that needed it are
    inconclusive, with what to supply: not a verdict on the implementation.

    Webhook checks need the implementation to deliver its events to http://<this host>:<--webhook-port>/ (https://
    with --webhook-tls or --webhook-cert), where the kit listens. Given --webhook-secret, only deliveries whose
    signature verifies count, the others are noise; without it, the event verdicts are unauthenticated. At level
    spec a signature is HMAC-SHA256 over "<t>.<raw body>" or the raw body alone, v1 in hex or base64
    (--signature-encoding pins one); level strict also wants openapi.yaml's hex over "<t>.<raw body>" within 300 s.
    The generated checks (generated.*) send inputs and sequences made from the stated rules, after the other checks,
    as many as the rate-limit window leaves them (--generated-requests sets it); a failure names its seed and its
    smallest case as curl commands, and --seed replays the run; --exclude "generated.*" leaves them out.

    The kit paces itself by X-RateLimit-Remaining and waits out 429 Retry-After: a Free plan key (10 requests a
    minute) completes, slowly. It leaves a quarter of each rate-limit window to the workspace's other clients
    (--rate-limit-reserve), can be held to a rate of its own (--rate-limit 60/m), and exhausts a window on purpose
    only when asked (--provoke-429, or --rate-limit-key with a key no one else uses).

    Exit code 0 when every selected check that ran passed, ${ExitCode.nonConformant} when one failed,
    ${ExitCode.inconclusive} when none failed but some were inconclusive.
  `;

  static override examples = [
    {
      description: 'Check a staging deployment quickly, the key from the environment',
      command: 'SVC_API_KEY=svc_test_… <%= config.bin %> contract verify --base-url https://staging.example.com --fast',
    },
    {
      description: 'Check the local sandbox at level strict, with its webhooks, and write JUnit for CI',
      command:
        '<%= config.bin %> contract verify --base-url https://127.0.0.1:8443 --ca-cert "$(svc sandbox cert)" --webhook-port 4010 --level strict --junit contract.xml',
    },
    {
      description: 'Check an implementation with request shapes of its own, over TLS webhooks, revoking a key made in its dashboard',
      command:
        '<%= config.bin %> contract verify --base-url https://staging.example.com --fixtures fixtures.yaml --webhook-port 4010 --webhook-tls --revocable-key-id key_… --json',
    },
    {
      description: 'Run only some checks, by name or pattern',
      command: '<%= config.bin %> contract verify --base-url https://staging.example.com --only "auth.*,reports.get" --json',
    },
    {
      description: 'On a shared workspace: leave out the event checks and hold the kit to 10 requests a second',
      command: '<%= config.bin %> contract verify --base-url https://staging.example.com --exclude "events.*" --rate-limit 10/s',
    },
    {
      description: 'Provoke a 429 too, with a key of a workspace no one else uses, whose window it exhausts',
      command: 'SVC_RATE_LIMIT_KEY=svc_test_… <%= config.bin %> contract verify --base-url https://staging.example.com',
    },
  ];

  // Its flags are exactly those the kit documents (SvcCommand); the connection is every command's: flag, else variable, else the profile bound to the base URL.
  static override flags = {
    profile: Flags.string({
      description: 'Profile whose base URL, keys and certificates to use where no flag or variable gives them (default: SVC_PROFILE, then the current profile)',
      env: 'SVC_PROFILE',
      helpGroup: 'TARGET',
    }),
    'base-url': Flags.string({ description: "Base URL of the implementation to check (default: the profile's)", env: 'SVC_BASE_URL', helpGroup: 'TARGET' }),
    'api-key': keyFlag(
      'api-key',
      "A svc_test_ key of the implementation; required, except at the base URL of a profile that holds one, as a sandbox's profile does, whose keys are taken (its CA certificate is trusted there, key given or not)",
    ),
    'admin-key': keyFlag('admin-key', 'Its admin key (svc_admin_…), for the revocation checks'),
    'read-only-key': keyFlag('read-only-key', 'A read-only key of the same workspace'),
    'ip-locked-key': keyFlag('ip-locked-key', "A key locked to addresses other than this machine's"),
    'other-workspace-key': keyFlag('other-workspace-key', 'A key of another workspace, for the isolation checks'),
    'other-workspace-admin-key': keyFlag('other-workspace-admin-key', "The admin key of that other workspace: it must not revoke this workspace's keys"),
    'revocable-key-id': Flags.string({
      description:
        'Id (key_…) of a key of the workspace that the kit may revoke, made in the dashboard for this run: the revocation checks revoke it where the kit cannot make a key of its own with --admin-key through POST /v1/keys (an operation the specification does not show); a key already revoked skips them',
      helpGroup: 'KEY',
    }),
    'revocable-key': keyFlag('revocable-key', 'The secret of the key of --revocable-key-id'),
    'rate-limit-key': keyFlag(
      'rate-limit-key',
      'A key of a workspace (or rate-limit bucket) no one else uses, for the provoked 429 alone: the kit exhausts its window, then waits it out',
    ),
    'webhook-secret': keyFlag('webhook-secret', 'The secret the implementation signs its webhooks with'),
    'signature-encoding': signatureEncodingFlag,
    'webhook-port': Flags.integer({
      description:
        'Port the kit receives webhook deliveries on (the implementation delivers to http://<--webhook-host>:<port>/, or https:// with --webhook-tls)',
      min: 1,
      max: 65_535,
      helpGroup: 'TARGET',
    }),
    'webhook-host': Flags.string({
      description:
        'Address the kit receives webhook deliveries on: loopback by default; an address of this machine (0.0.0.0: all) when the implementation runs elsewhere',
      default: '127.0.0.1',
      helpGroup: 'TARGET',
    }),
    'webhook-tls': Flags.boolean({
      description:
        'The receiver speaks HTTPS with a certificate the kit makes and keeps (the implementation trusts it once); its path is printed and in the run record',
      exclusive: ['webhook-cert'],
      helpGroup: 'TARGET',
    }),
    'webhook-cert': Flags.string({
      description: 'PEM certificate (chain) for an HTTPS receiver, instead of the one --webhook-tls makes',
      dependsOn: ['webhook-key'],
      exclusive: ['webhook-tls'],
      helpGroup: 'TARGET',
    }),
    'webhook-key': Flags.string({ description: 'PEM private key of --webhook-cert', dependsOn: ['webhook-cert'], helpGroup: 'TARGET' }),
    level: Flags.option({
      description: 'spec: only what the specification states; strict: also every assumption of openapi.yaml',
      options: ['spec', 'strict'] as const,
      default: 'spec',
    })(),
    insecure: Flags.boolean({
      description: "Do not check the implementation's TLS certificate (throwaway test deployments only)",
      exclusive: ['ca-cert', 'ca-cert-only'],
      helpGroup: 'TARGET',
    }),
    'ca-cert': caCertFlag({ to: 'for the implementation', env: 'SVC_CA_CERT', exclusive: ['insecure'], helpGroup: 'TARGET' }),
    'ca-cert-only': caCertOnlyFlag({ helpGroup: 'TARGET' }),
    'client-cert': Flags.string({
      description: 'PEM client certificate, for an implementation behind a gateway that asks for one',
      env: 'SVC_CLIENT_CERT',
      dependsOn: ['client-key'],
      helpGroup: 'TARGET',
    }),
    'client-key': Flags.string({
      description: 'PEM private key of --client-cert (mode 0600)',
      env: 'SVC_CLIENT_KEY',
      dependsOn: ['client-cert'],
      helpGroup: 'TARGET',
    }),
    fast: Flags.boolean({ description: "Skip the checks that wait out the specification's own delays (the 30 s redeliveries)" }),
    'provoke-429': Flags.boolean({
      description:
        "Provoke a 429 with the test key (limits.remaining-header-429): the kit exhausts the workspace's rate-limit window, so that every other client of the workspace is refused until it ends; for a workspace no one else uses",
      exclusive: ['fast'],
    }),
    'rate-limit': requestRateFlag({
      description: 'Send at most this many requests, of every kind, per second, minute, hour or day, e.g. 60/m (default: as the implementation allows)',
    }),
    'rate-limit-reserve': Flags.integer({
      description: `Percentage of each rate-limit window (as X-RateLimit-Remaining shows it) the kit leaves to the workspace's other clients (default ${DEFAULT_RESERVE * 100}; 0 on a workspace no one else uses)`,
      min: 0,
      max: 90,
    }),
    seed: Flags.integer({
      description:
        'Seed of the generated checks (generated.*): the same seed generates the same inputs and sequences, to replay a run whose failure named it (default: a fresh one, printed)',
      min: 0,
      max: 2 ** 31 - 1,
    }),
    'generated-requests': Flags.integer({
      description:
        "How many requests the generated checks send in all (default: the kit's share of one rate-limit window, at most 800; with --fast what the window leaves, at most 300)",
      min: 0,
    }),
    'max-wait-total': durationFlag({
      description: `The longest the run waits in all at the implementation's request (Retry-After, X-RateLimit-Reset, pacing, retries), e.g. 90m; past it the run stops, the checks left inconclusive (default ${DEFAULT_RUN_LIMITS.waitMs / 60_000}m)`,
    }),
    'max-transient-answers': Flags.integer({
      description: `The most transient answers (429, or 502, 503 or 504 with Retry-After) the run takes in a row; past it the run stops, the checks left inconclusive (default ${DEFAULT_RUN_LIMITS.transientInARow})`,
      min: 1,
    }),
    only: Flags.string({ description: 'Run only these checks: ids or prefixes ending in *, separated by commas (svc contract list shows them)' }),
    exclude: Flags.string({ description: 'Leave out these checks: ids or prefixes ending in *, separated by commas, as --only takes them' }),
    fixtures: Flags.string({
      description:
        'JSON or YAML file of the request bodies the specification leaves open: applicant, report, document, failing_report (see docs/contract-kit.md)',
      helpGroup: 'INPUT',
    }),
    'fixtures-allow-outside': Flags.boolean({
      description:
        'Let "document.file" and "failing_report.file" of --fixtures name a file outside the fixtures file\'s directory (it must still be a regular file of at most 32 MiB)',
      dependsOn: ['fixtures'],
      helpGroup: 'INPUT',
    }),
    'applicant-file': Flags.string({ description: 'JSON body for POST /v1/applicants (the same as "applicant" in --fixtures)', helpGroup: 'INPUT' }),
    'answer-timeout': durationFlag({
      description: 'How long one answer of the implementation may take, from connecting to its last byte (default 30s)',
      helpGroup: 'INPUT',
    }),
    'report-timeout': durationFlag({ description: 'How long a report may take to finish (default 2m)', helpGroup: 'INPUT' }),
    'event-timeout': durationFlag({ description: 'How long a webhook event may take to arrive after what triggers it (default 30s)', helpGroup: 'INPUT' }),
    'provider-name': Flags.string({ description: 'Name of the provider in the Pact verification', default: PACT_PROVIDER, helpGroup: 'INPUT' }),
    junit: Flags.string({ description: 'Write a JUnit XML report to this file (inconclusive checks are errors)' }),
  };

  /** Where --junit writes, once the flags are parsed: a run that ends before its verdict writes its error there. */
  private junitPath: string | undefined;

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ContractVerify);
    this.junitPath = flags.junit;
    this.takeKeyFlags(flags);
    const connection = await resolveConnection(connectionInput(flags), this.io.env);
    const { baseUrl } = connection;
    const { keys, webhookSecret } = this.givenKitKeys(flags, connection);
    const level = flags.level;
    const { only, exclude } = chosenChecks(level, flags.only, flags.exclude);
    const fixtures = await readKitFixtures(flags.fixtures, flags['applicant-file'], flags['fixtures-allow-outside']);
    const webhookTls = await this.receiverCertificate(flags);
    this.warnOfWebhookFlags(flags, webhookTls);

    const { runConformance } = await import('../../conformance/run.js');
    const result = await runConformance({
      baseUrl,
      keys,
      webhookSecret,
      signatureEncoding: flags['signature-encoding'],
      webhookPort: flags['webhook-port'],
      webhookHost: flags['webhook-host'],
      webhookTls,
      level,
      network: await this.connectionNetwork(connection),
      fast: flags.fast,
      provoke429: flags['provoke-429'],
      rate: flags['rate-limit'],
      reserve: flags['rate-limit-reserve'] === undefined ? undefined : flags['rate-limit-reserve'] / 100,
      limits: { waitMs: flags['max-wait-total'], transientInARow: flags['max-transient-answers'] },
      only,
      exclude,
      seed: flags.seed,
      generatedRequests: flags['generated-requests'],
      fixtures,
      timeouts: kitTimeouts(flags),
      env: this.io.env,
      pact: { providerName: flags['provider-name'] },
      log: (line) => this.note(line),
      clock: this.clock,
    });
    if (flags.junit) {
      await writeFile(flags.junit, toJunit(result));
      this.note(`JUnit report written to ${flags.junit}`);
    }
    this.log(renderForPeople(result, this.io.stdout));
    if (result.failed > 0) this.exitCode = ExitCode.nonConformant;
    else if (result.inconclusive > 0) this.exitCode = ExitCode.inconclusive;
    return toJson(result);
  }

  /** A CI's test reporter finds a report, and a failing one, whatever stopped the run. */
  protected override async catch(error: Error): Promise<unknown> {
    if (this.junitPath) {
      const failure = asSvcError(error);
      try {
        await writeFile(this.junitPath, runErrorJunit(failure.exitCode, redactText(failure.message, this.secrets)));
        this.note(`JUnit report of the error written to ${this.junitPath}`);
      } catch (writing) {
        this.warning(`could not write the JUnit report to ${this.junitPath}: ${(writing as Error).message}`);
      }
    }
    return super.catch(error);
  }

  /**
   * The kit's keys and webhook secret, each from its flag (or variable), else the profile's setting, and
   * redacted from the run's output from then on.
   */
  private givenKitKeys(
    flags: Partial<Record<keyof typeof KEY_FLAGS | 'revocable-key-id', string>>,
    connection: Connection,
  ): { keys: KitKeys; webhookSecret: string | undefined } {
    // A profile's keys are one workspace's: with the API key given by flag or environment, none of them is mixed in.
    const saved: Profile = flags['api-key'] === undefined ? connection.settings : {};
    if (flags['api-key'] === undefined && connection.apiKey) this.note(`The keys of the profile "${connection.boundProfile}", whose base URL this is`);
    const webhookSecret = flags['webhook-secret'] ?? saved.webhook_secret;
    const revocableId = flags['revocable-key-id'] ?? saved.revocable_key_id;
    assertStated([['--revocable-key-id', revocableId, STATED.keyId]]);
    const keys = kitKeys({
      api: connection.apiKey?.value,
      admin: flags['admin-key'] ?? saved.admin_key,
      readOnly: flags['read-only-key'] ?? saved.read_only_key,
      ipLocked: flags['ip-locked-key'] ?? saved.ip_locked_key,
      other: flags['other-workspace-key'] ?? saved.other_workspace_key,
      otherAdmin: flags['other-workspace-admin-key'] ?? saved.other_workspace_admin_key,
      revocableId,
      revocable: flags['revocable-key'] ?? saved.revocable_key,
      rateLimit: flags['rate-limit-key'] ?? saved.rate_limit_key,
    });
    this.secrets.push(...Object.values(keys).filter((value): value is string => typeof value === 'string'), ...(webhookSecret ? [webhookSecret] : []));
    return { keys, webhookSecret };
  }

  /** Each key given is redacted from the run's output; one given in argv is warned of (it is in the shell's history). */
  private takeKeyFlags(flags: Partial<Record<keyof typeof KEY_FLAGS, string>>): void {
    for (const [name, variable] of Object.entries(KEY_FLAGS)) {
      const value = flags[name as keyof typeof KEY_FLAGS];
      if (value) this.secrets.push(value);
      if (this.argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))) {
        this.warning(secretOnCommandLine(`a secret given with --${name}`, variable));
      }
    }
  }

  private warnOfWebhookFlags(flags: WebhookFlags, webhookTls: ReceiverCertificate | undefined): void {
    if (flags['webhook-port'] === undefined) {
      for (const name of ['webhook-secret', 'signature-encoding', 'webhook-tls', 'webhook-cert'] as const) {
        if (flags[name]) this.warning(`--${name} without --webhook-port: the kit receives no webhook, so the event checks are skipped`);
      }
    } else if (!webhookTls && !isLoopbackHost(flags['webhook-host'])) {
      this.warning(`the receiver on ${flags['webhook-host']} takes deliveries in plain HTTP, readable on the network: --webhook-tls makes it HTTPS`);
    }
  }

  private async receiverCertificate(flags: {
    'webhook-tls'?: boolean;
    'webhook-cert'?: string | undefined;
    'webhook-key'?: string | undefined;
  }): Promise<ReceiverCertificate | undefined> {
    if (flags['webhook-cert'] && flags['webhook-key']) {
      return {
        cert: await readPem(flags['webhook-cert'], '--webhook-cert', 'CERTIFICATE'),
        key: await readPem(flags['webhook-key'], '--webhook-key', 'PRIVATE KEY'),
        certPath: flags['webhook-cert'],
      };
    }
    if (!flags['webhook-tls']) return undefined;
    const { kitReceiverCertificate } = await import('../../conformance/receiver.js');
    return kitReceiverCertificate(this.paths.dataDir);
  }
}

interface WebhookFlags {
  'webhook-port'?: number | undefined;
  'webhook-host': string;
  'webhook-secret'?: string | undefined;
  'signature-encoding'?: string | undefined;
  'webhook-tls'?: boolean | undefined;
  'webhook-cert'?: string | undefined;
}

function patterns(flag: string | undefined): string[] | undefined {
  return flag
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * The checks --only names, less those --exclude names (ids or prefixes ending in *): a pattern that
 * names no check is refused, and so is a choice that leaves no check at `level`.
 */
function chosenChecks(level: Level, onlyFlag: string | undefined, excludeFlag: string | undefined): { only?: string[]; exclude?: string[] } {
  const only = patterns(onlyFlag);
  const exclude = patterns(excludeFlag);
  const { selected, unknown, unknownExcluded } = selectChecks(level, only, exclude);
  if (unknown.length > 0)
    throw new SvcError('usage', 'unknown_check', `--only names no check: ${unknown.join(', ')}`, 'list the checks with `svc contract list`');
  if (unknownExcluded.length > 0)
    throw new SvcError('usage', 'unknown_check', `--exclude names no check: ${unknownExcluded.join(', ')}`, 'list the checks with `svc contract list`');
  if ((only || exclude) && selected.length === 0) {
    const chosen = only ?? [];
    throw new SvcError(
      'usage',
      'no_check_selected',
      `${only ? '--only' : 'the level'}${exclude ? ' less --exclude' : ''} selects no check at level ${level}`,
      CATALOGUE.some((check) => check.level === 'strict' && chosen.some((item) => check.id.startsWith(item.replace(/\*$/, ''))))
        ? 'strict checks need --level strict'
        : 'list the checks with `svc contract list`',
    );
  }
  return { only, exclude };
}

function kitTimeouts(flags: { 'answer-timeout'?: number | undefined; 'report-timeout'?: number | undefined; 'event-timeout'?: number | undefined }) {
  return {
    ...(flags['answer-timeout'] !== undefined && { answerMs: flags['answer-timeout'] }),
    ...(flags['report-timeout'] !== undefined && { completionMs: flags['report-timeout'] }),
    ...(flags['event-timeout'] !== undefined && { eventMs: flags['event-timeout'] }),
  };
}

async function readPem(path: string, flag: string, kind: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      'pem_unreadable',
      `cannot read ${path} given with ${flag} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      `check the path given with ${flag}`,
    );
  }
  if (!new RegExp(`-----BEGIN [A-Z ]*${kind}-----`).test(text))
    throw new ConfigError('pem_invalid', `${path} given with ${flag} holds no PEM ${kind.toLowerCase()}`, `give a PEM file (-----BEGIN …${kind}-----)`);
  return text;
}
