import { randomBytes } from 'node:crypto';
import { call, type KitContext } from '../context.js';
import type { Exchange } from '../http.js';
import { bodyNamesCode, CheckFailure, CheckSkipped, Findings, isSuccess, shown } from '../outcome.js';
import { listHolds, stillThere } from './reports.js';
import type { ProbeSet } from './types.js';

/** Expects an error status with the stated code anywhere in the body (its shape is not shown, part 7). */
function expectError(findings: Findings, exchange: Exchange, status: number, code: string): void {
  findings.expect(exchange.status === status && bodyNamesCode(exchange, code), `${status} with the code ${code}`, shown(exchange), exchange);
}

function anonymous(context: KitContext, authorization: string | null, purpose: string): Promise<Exchange> {
  return context.client.send({ method: 'GET', path: '/v1/reports', authorization, role: 'none', purpose });
}

interface RevocationScenario {
  keyId: string;
  before: Exchange;
  byNonAdmin: Exchange;
  afterNonAdmin: Exchange;
  byAdmin: Exchange;
  afterAdmin: Exchange;
}

const scenarios = new WeakMap<KitContext, Promise<RevocationScenario>>();

/**
 * A key made for the purpose, revoked first with the test key (which must be refused), then with
 * the admin key (after which the key must be refused at once).
 */
function revocation(context: KitContext): Promise<RevocationScenario> {
  let promise = scenarios.get(context);
  if (!promise) {
    promise = (async () => {
      const key = await context.fixtures.createdKey('revocation');
      const use = () => context.client.send({ method: 'GET', path: '/v1/reports', authorization: `Bearer ${key.secret}`, role: 'created', purpose: 'auth.revocation' });
      const before = await use();
      const byNonAdmin = await call(context, 'DELETE', `/v1/keys/${key.id}`, { role: 'api', purpose: 'auth.revocation-needs-admin' });
      const afterNonAdmin = await use();
      const byAdmin = await call(context, 'DELETE', `/v1/keys/${key.id}`, { role: 'admin', purpose: 'auth.revocation-immediate' });
      if (isSuccess(byAdmin.status)) context.fixtures.revoked.add(key.id);
      const afterAdmin = await use();
      return { keyId: key.id, before, byNonAdmin, afterNonAdmin, byAdmin, afterAdmin };
    })();
    scenarios.set(context, promise);
  }
  return promise;
}

function randomKey(): string {
  return `svc_test_${randomBytes(24).toString('hex').replace(/[^a-z0-9]/g, '')}`;
}

export const authProbes: ProbeSet = {
  probes: {
    'transport.https-only': async (context) => {
      const answer = await context.client.plainHttp('/v1/reports', `Bearer ${context.keys.api}`);
      if ('refused' in answer) return `${answer.url}: no plain HTTP connection (${answer.refused})`;
      if (isSuccess(answer.status)) {
        throw new CheckFailure([{ expected: 'the plain HTTP request rejected (no connection, or any answer but a success)', got: shown({ status: answer.status, body: answer.body }), request: `GET ${answer.url}` }]);
      }
      return `${answer.url}: answered ${answer.status}${answer.status >= 300 && answer.status < 400 ? ` (redirect to ${answer.headers.location ?? 'nowhere'})` : ''}`;
    },

    'auth.missing-header': async (context) => {
      const findings = new Findings();
      expectError(findings, await anonymous(context, null, 'auth.missing-header'), 401, 'unauthorized');
      findings.done();
    },

    'auth.malformed-header': async (context) => {
      const findings = new Findings();
      expectError(findings, await anonymous(context, 'Basic c3ZjOnN2Yw==', 'auth.malformed-header'), 401, 'unauthorized');
      // The key itself, without the "Bearer " scheme: malformed, whatever the key.
      expectError(findings, await anonymous(context, context.keys.api, 'auth.malformed-header'), 401, 'unauthorized');
      findings.done();
    },

    'auth.unknown-key': async (context) => {
      const findings = new Findings();
      expectError(findings, await anonymous(context, `Bearer ${randomKey()}`, 'auth.unknown-key'), 401, 'invalid_key');
      findings.done();
    },

    'auth.read-only-can-read': async (context) => {
      const report = await context.fixtures.firstReport();
      const findings = new Findings();
      const read = await call(context, 'GET', `/v1/reports/${report.id}`, { role: 'readOnly', purpose: 'auth.read-only-can-read' });
      findings.expect(isSuccess(read.status), 'a 2xx answer with the report', shown(read), read);
      const list = await call(context, 'GET', '/v1/reports', { role: 'readOnly', purpose: 'auth.read-only-can-read' });
      findings.expect(isSuccess(list.status), 'a 2xx answer with the list', shown(list), list);
      findings.done();
    },

    'auth.read-only-cannot-write': async (context) => {
      if (!context.keys.readOnly) throw new CheckSkipped('needs --read-only-key');
      const applicant = await context.fixtures.applicant();
      const target = await context.fixtures.createReport('auth.read-only-cannot-write');
      const findings = new Findings();
      const created = await call(context, 'POST', '/v1/reports', { role: 'readOnly', purpose: 'auth.read-only-cannot-write', json: JSON.parse(target.created.requestBody ?? '{}') });
      expectError(findings, created, 403, 'forbidden');
      const createdId = (created.json as { id?: unknown } | undefined)?.id;
      if (isSuccess(created.status) && typeof createdId === 'string') context.fixtures.reports.add(createdId);
      // The applicant the kit made, once more: a valid write, so only the key's limit can refuse it.
      const applicantWrite = await call(context, 'POST', '/v1/applicants', { role: 'readOnly', purpose: 'auth.read-only-cannot-write', json: JSON.parse(applicant.created.requestBody ?? '{}') });
      expectError(findings, applicantWrite, 403, 'forbidden');
      const deleted = await call(context, 'DELETE', `/v1/reports/${target.id}`, { role: 'readOnly', purpose: 'auth.read-only-cannot-write' });
      expectError(findings, deleted, 403, 'forbidden');
      const still = await call(context, 'GET', `/v1/reports/${target.id}`, { role: 'api', purpose: 'auth.read-only-cannot-write' });
      findings.expect(isSuccess(still.status), `${target.id} still there after the read-only DELETE`, shown(still), still);
      if (!isSuccess(still.status)) context.fixtures.deleted.add(target.id);
      findings.done();
    },

    'auth.ip-not-allowed': async (context) => {
      const findings = new Findings();
      expectError(findings, await call(context, 'GET', '/v1/reports', { role: 'ipLocked', purpose: 'auth.ip-not-allowed' }), 403, 'ip_not_allowed');
      findings.done();
    },

    'auth.revocation-needs-admin': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      findings.expect(isSuccess(scenario.before.status), 'the new key to work before any revocation', shown(scenario.before), scenario.before);
      expectError(findings, scenario.byNonAdmin, 403, 'forbidden');
      findings.expect(isSuccess(scenario.afterNonAdmin.status), 'the key to keep working after the refused revocation', shown(scenario.afterNonAdmin), scenario.afterNonAdmin);
      findings.done();
    },

    'auth.revocation-immediate': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      findings.expect(isSuccess(scenario.before.status), 'the new key to work before its revocation', shown(scenario.before), scenario.before);
      if (findings.expect(isSuccess(scenario.byAdmin.status), 'a 2xx answer to the revocation with the admin key', shown(scenario.byAdmin), scenario.byAdmin)) {
        expectError(findings, scenario.afterAdmin, 401, 'invalid_key');
      }
      findings.done();
    },

    'auth.workspace-isolation': async (context) => {
      if (!context.keys.other) throw new CheckSkipped('needs --other-workspace-key');
      const target = await context.fixtures.createReport('auth.workspace-isolation');
      const findings = new Findings();
      const read = await call(context, 'GET', `/v1/reports/${target.id}`, { role: 'other', purpose: 'auth.workspace-isolation' });
      findings.expect(!stillThere(read, target.id), `no access to ${target.id} from another workspace`, shown(read), read);
      const { found, first } = await listHolds(context, target.id, 'other', 'auth.workspace-isolation');
      findings.expect(isSuccess(first.status) && !found, `the other workspace's list (2xx) without ${target.id}`, found ? `${target.id} in it` : shown(first), first);
      // What a DELETE of another workspace's report answers is not shown; that the report survives it is stated.
      await call(context, 'DELETE', `/v1/reports/${target.id}`, { role: 'other', purpose: 'auth.workspace-isolation' });
      const still = await call(context, 'GET', `/v1/reports/${target.id}`, { role: 'api', purpose: 'auth.workspace-isolation' });
      findings.expect(isSuccess(still.status), `${target.id} still there for its own workspace`, shown(still), still);
      if (!isSuccess(still.status)) context.fixtures.deleted.add(target.id);
      findings.done();
    },
  },
};
