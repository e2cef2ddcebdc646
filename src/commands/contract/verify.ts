import { readFile, writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { parseBaseUrl } from '../../api/base-url.js';
import { BaseCommand } from '../../base-command.js';
import { CATALOGUE, type Level, selectChecks } from '../../conformance/catalogue.js';
import type { KitKeys } from '../../conformance/context.js';
import { renderForPeople, toJson, toJunit } from '../../conformance/report.js';
import { assertKey } from '../../config/keys.js';
import { ConfigError, ExitCode, SvcError } from '../../errors.js';

const KEY_FLAGS = {
  'api-key': 'SVC_API_KEY',
  'admin-key': 'SVC_ADMIN_KEY',
  'read-only-key': 'SVC_READ_ONLY_KEY',
  'ip-locked-key': 'SVC_IP_LOCKED_KEY',
  'other-workspace-key': 'SVC_OTHER_WORKSPACE_KEY',
  'webhook-secret': 'SVC_WEBHOOK_SECRET',
} as const;

const secretFlag = (name: keyof typeof KEY_FLAGS, description: string) =>
  Flags.string({ description: `${description} (visible to other local users in the process list: prefer ${KEY_FLAGS[name]})`, env: KEY_FLAGS[name], helpGroup: 'KEY' });

export default class ContractVerify extends BaseCommand {
  static override summary = 'Check an implementation of the API against the specification, for CI';

  static override description = `Runs the Pact contracts of contracts/ (provider verification, with states set up through the public API) and probes for what Pact cannot express, against the implementation at --base-url, and reports one result: a table per part of the specification, --json, --junit.
--level spec checks only what the specification states and accepts every choice it leaves open; --level strict also checks every assumption of openapi.yaml. A check whose input is not given (a read-only key, the webhook port…) is skipped, never passed. The kit deletes the reports and revokes the keys it made.
Webhook checks need the implementation to deliver its events to http://<this host>:<--webhook-port>/, where the kit listens. The kit paces itself by X-RateLimit-Remaining and waits out 429 Retry-After: a Free plan key (10 requests a minute) completes, slowly.
Exit code 0 when no selected check failed, ${ExitCode.nonConformant} when one did.`;

  static override examples = [
    'SVC_API_KEY=svc_test_… <%= config.bin %> contract verify --base-url https://staging.example.com --fast',
    '<%= config.bin %> contract verify --base-url https://127.0.0.1:8443 --ca-cert "$(svc sandbox cert)" --webhook-port 4010 --level strict --junit contract.xml',
    '<%= config.bin %> contract verify --base-url https://staging.example.com --only "auth.*,reports.get" --json',
  ];

  // The flags are exactly those the kit documents: no profile, so a CI run depends on nothing but its flags and environment.
  static override baseFlags = {} as typeof BaseCommand.baseFlags;

  static override flags = {
    'base-url': Flags.string({ description: 'Base URL of the implementation to check', env: 'SVC_BASE_URL', helpGroup: 'TARGET' }),
    'api-key': secretFlag('api-key', 'A svc_test_ key of the implementation; required'),
    'admin-key': secretFlag('admin-key', 'Its admin key (svc_admin_…), for the revocation checks'),
    'read-only-key': secretFlag('read-only-key', 'A read-only key of the same workspace'),
    'ip-locked-key': secretFlag('ip-locked-key', "A key locked to addresses other than this machine's"),
    'other-workspace-key': secretFlag('other-workspace-key', "A key of another workspace, for the isolation checks"),
    'webhook-secret': secretFlag('webhook-secret', 'The secret the implementation signs its webhooks with'),
    'webhook-port': Flags.integer({ description: 'Port the kit receives webhook deliveries on (the implementation delivers to http://<this host>:<port>/)', min: 1, max: 65_535, helpGroup: 'TARGET' }),
    level: Flags.option({ description: 'spec: only what the specification states; strict: also every assumption of openapi.yaml', options: ['spec', 'strict'] as const, default: 'spec' })(),
    insecure: Flags.boolean({ description: "Do not check the implementation's TLS certificate (throwaway test deployments only)", exclusive: ['ca-cert'], helpGroup: 'TARGET' }),
    'ca-cert': Flags.string({ description: 'PEM CA certificate to trust for the implementation', env: 'SVC_CA_CERT', exclusive: ['insecure'], helpGroup: 'TARGET' }),
    fast: Flags.boolean({ description: "Skip the checks that wait out the specification's own delays (the 30 s redelivery)" }),
    only: Flags.string({ description: 'Run only these checks: ids or prefixes ending in *, separated by commas (svc contract list shows them)' }),
    'applicant-file': Flags.string({ description: 'JSON body for POST /v1/applicants, if the implementation takes other applicant fields than openapi.yaml' }),
    junit: Flags.string({ description: 'Write a JUnit XML report to this file' }),
  };

  public async run(): Promise<Record<string, unknown>> {
    const { flags } = await this.parse(ContractVerify);
    for (const [name, variable] of Object.entries(KEY_FLAGS)) {
      const value = flags[name as keyof typeof KEY_FLAGS];
      if (value) this.secrets.push(value);
      if (this.argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))) {
        this.warning(`a secret given with --${name} is visible to other local users in the process list; prefer ${variable}`);
      }
    }
    if (!flags['base-url']) throw new ConfigError('no_base_url', 'no base URL of the implementation to check', 'pass --base-url (or set SVC_BASE_URL)');
    const baseUrl = parseBaseUrl(flags['base-url'], '--base-url');
    const keys = this.keys(flags);
    const level = flags.level as Level;
    const only = flags.only?.split(',').map((item) => item.trim()).filter(Boolean);
    const { selected, unknown } = selectChecks(level, only);
    if (unknown.length > 0) throw new SvcError('usage', 'unknown_check', `--only names no check: ${unknown.join(', ')}`, 'list the checks with `svc contract list`');
    if (only && selected.length === 0) {
      throw new SvcError('usage', 'no_check_selected', `--only selects no check at level ${level}`, CATALOGUE.some((check) => check.level === 'strict' && only.some((item) => check.id.startsWith(item.replace(/\*$/, '')))) ? 'strict checks need --level strict' : 'list the checks with `svc contract list`');
    }
    if (flags['webhook-secret'] && flags['webhook-port'] === undefined) this.warning('--webhook-secret without --webhook-port: the kit receives no webhook, so the event checks are skipped');
    const applicantBody = flags['applicant-file'] ? await readApplicant(flags['applicant-file']) : undefined;

    const { runConformance } = await import('../../conformance/run.js');
    const result = await runConformance({
      baseUrl,
      keys,
      webhookSecret: flags['webhook-secret'],
      webhookPort: flags['webhook-port'],
      level,
      caCertPath: flags['ca-cert'],
      insecure: flags.insecure,
      fast: flags.fast,
      only,
      applicantBody,
      log: (line) => this.note(line),
    });
    if (flags.junit) {
      await writeFile(flags.junit, toJunit(result));
      this.note(`JUnit report written to ${flags.junit}`);
    }
    this.log(renderForPeople(result));
    if (result.failed > 0) process.exitCode = ExitCode.nonConformant;
    return toJson(result);
  }

  private keys(flags: { 'api-key'?: string | undefined; 'admin-key'?: string | undefined; 'read-only-key'?: string | undefined; 'ip-locked-key'?: string | undefined; 'other-workspace-key'?: string | undefined }): KitKeys {
    const apiKey = flags['api-key'];
    if (!apiKey) throw new ConfigError('no_api_key', 'no API key of the implementation', 'pass a svc_test_ key with --api-key, or better SVC_API_KEY');
    if (assertKey(apiKey, 'api_key', '--api-key') !== 'test') {
      throw new ConfigError('not_a_test_key', 'the kit needs a svc_test_ key: it creates reports (a live key would consume credits) and checks that test keys give deterministic results', 'pass a svc_test_ key with --api-key or SVC_API_KEY');
    }
    if (flags['admin-key']) assertKey(flags['admin-key'], 'admin_key', '--admin-key');
    for (const name of ['read-only-key', 'ip-locked-key', 'other-workspace-key'] as const) {
      if (flags[name]) assertKey(flags[name], 'api_key', `--${name}`);
    }
    return { api: apiKey, admin: flags['admin-key'], readOnly: flags['read-only-key'], ipLocked: flags['ip-locked-key'], other: flags['other-workspace-key'] };
  }
}

async function readApplicant(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('applicant_file_unreadable', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'give the path of a JSON file with the applicant fields');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('applicant_file_invalid', `${path} is not JSON: ${(error as Error).message}`, 'give a JSON object with the applicant fields');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ConfigError('applicant_file_invalid', `${path} holds no JSON object`, 'give a JSON object with the applicant fields');
  return body as Record<string, unknown>;
}
