/**
 * The CLI's commands against the gateway implementation of the accuracy test (./gateway.ts: the raw
 * file as the upload with its kind and applicant in the query string, errors as
 * `{"message", "error_code"}`, no key API but the stated DELETE), run in this process: a document
 * upload in its shape, by flags and from the profile, and a rotation of a key made in its dashboard.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import ConfigSet from '../../src/commands/config/set.js';
import DocumentsUpload from '../../src/commands/documents/upload.js';
import KeysRotate from '../../src/commands/keys/rotate.js';
import { SAMPLE_APPLICANT, SAMPLE_REPORT, samplePassportPdf } from '../../src/conformance/samples.js';
import { ExitCode } from '../../src/core/errors.js';
import { runInProcess } from '../helpers/in-process.js';
import { type MutatingImplementation, type ProxyState, startMutatingImplementation } from '../helpers/mutating-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';
import { createKeyWithAdmin } from '../commands/keys/fixtures.js';
import { GATEWAY } from './gateway.js';

let sandbox: InProcessSandbox;
let gateway: MutatingImplementation;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: sandbox.keys.webhook_secret };
  gateway = await startMutatingImplementation(sandbox, GATEWAY, state);
});
afterAll(async () => {
  await gateway?.close();
  await sandbox?.stop();
});

/** A home of its own, pointed at the gateway. */
function environment(keys: Record<string, string>): Record<string, string> {
  return isolatedEnv({ SVC_BASE_URL: gateway.baseUrl, SVC_CA_CERT: gateway.caCertPath, SVC_RETRIES: '0', ...keys });
}

async function applicant(): Promise<string> {
  const answer = await sandbox.fetch('/v1/applicants', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SAMPLE_APPLICANT),
  });
  return ((await answer.json()) as { id: string }).id;
}

/** A report of the workspace, as a workspace in use has: svc compares the reports two keys list to tell that they share it. */
async function report(): Promise<void> {
  const answer = await sandbox.fetch('/v1/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ applicant_id: await applicant(), ...SAMPLE_REPORT }),
  });
  expect(answer.status).toBeLessThan(300);
}

it('documents upload: refused as a form (415 unsupported_media_type, read from error_code), taken with --query, and from the profile', async () => {
  const env = environment({ SVC_API_KEY: sandbox.keys.test });
  const file = join(env.HOME!, 'passport.pdf');
  writeFileSync(file, samplePassportPdf());
  const applicantId = await applicant();

  const form = await runInProcess(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicantId], { env });
  expect(form.code).toBe(ExitCode.invalidInput);
  expect(form.stderr).toContain('415 unsupported_media_type: send the file as the body, its type and applicant_id in the query string');

  const placed = ['--encoding', 'raw', '--query', 'type={{type}}', '--query', 'applicant_id={{applicant_id}}'];
  const byFlags = await runInProcess(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicantId, ...placed, '--json'], { env });
  expect(byFlags.code, byFlags.stderr).toBe(0);
  expect(JSON.parse(byFlags.stdout)).toMatchObject({ id: expect.stringMatching(/^doc_/), type: 'passport' });

  for (const [name, value] of [
    ['upload_encoding', 'raw'],
    ['upload_query', '{"type": "{{type}}", "applicant_id": "{{applicant_id}}"}'],
  ]) {
    const set = await runInProcess(ConfigSet, [name!, value!], { env });
    expect(set.code, set.stderr).toBe(0);
  }
  const byProfile = await runInProcess(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicantId, '--json'], { env });
  expect(byProfile.code, byProfile.stderr).toBe(0);
  const uploaded = JSON.parse(byProfile.stdout) as { id: string };
  // The sandbox behind the gateway holds it, as the applicant's passport.
  const held = (await (await sandbox.fetch(`/v1/documents/${uploaded.id}`)).json()) as { type: string; applicant_id: string };
  expect(held).toMatchObject({ type: 'passport', applicant_id: applicantId });
});

it('keys rotate: a key made in the dashboard, given by file, rotated to its end; the revoked key confirmed by 401 {"message", "error_code": "invalid_key"}', async () => {
  await report();
  const old = await createKeyWithAdmin(sandbox, { name: 'made in the dashboard' });
  const fresh = await createKeyWithAdmin(sandbox, { name: 'its successor, made in the dashboard' });
  const env = environment({ SVC_ADMIN_KEY: sandbox.keys.admin });
  const write = (name: string, secret: string) => {
    const path = join(env.HOME!, name);
    writeFileSync(path, `${secret}\n`, { mode: 0o600 });
    return path;
  };
  const appFile = write('app.key', old.secret);
  const result = await runInProcess(
    KeysRotate,
    [
      old.id,
      ...['--new-key-file', write('new.key', fresh.secret), '--new-key-id', fresh.id, '--old-key-file', write('old.key', old.secret)],
      ...['--deploy-cmd', `cat > '${appFile}.new' && mv '${appFile}.new' '${appFile}'`, '--drain-wait', '1s'],
      ...['--poll-interval', '200ms', '--timeout', '30s', '--allow-scope-change', '--yes', '--json'],
    ],
    { env },
  );
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.find((line) => line.step === 'confirm')?.message).toBe(`a request with ${old.id} got 401 invalid_key`);
  expect(lines.at(-1)).toMatchObject({ event: 'completed', old_key: old.id, new_key: fresh.id });
  expect(readFileSync(appFile, 'utf8').trim()).toBe(fresh.secret);
  // Revoked through the gateway's DELETE, and answered as the gateway answers a revoked key.
  const refused = await request(`${gateway.baseUrl}/v1/reports`, {
    headers: { authorization: `Bearer ${old.secret}` },
    dispatcher: new Agent({ connect: { ca: readFileSync(gateway.caCertPath) } }),
  });
  expect(refused.statusCode).toBe(401);
  expect(await refused.body.json()).toEqual({ message: 'This API key has been revoked', error_code: 'invalid_key' });
  for (const secret of [old.secret, fresh.secret, sandbox.keys.admin]) expect(result.stdout + result.stderr).not.toContain(secret);
});
