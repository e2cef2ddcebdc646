import { randomBytes } from 'node:crypto';
import { type KitContext, ownKeyAdvice, type RevocationKey } from '../context.js';
import { sendWithKey, field, idOf } from '../requests.js';
import { passportFile, reportBody } from '../fixtures.js';
import { type Exchange, parseJson, type Purpose } from '../http.js';
import { bodyNamesCode, CheckFailure, Findings, isSuccess, SetupError, shown } from '../outcome.js';
import { plainHttpAnswer } from './plain-http.js';
import { searchList, unreadList } from '../list-search.js';
import { stillThere } from './reports.js';
import type { ProbeSet } from './types.js';

/** Expects an error status with the stated code anywhere in the body (its shape is not shown, part 7). */
function expectError(findings: Findings, exchange: Exchange, status: number, code: string): void {
  findings.expect(exchange.status === status && bodyNamesCode(exchange, code), `${status} with the code ${code}`, shown(exchange), exchange);
}

function anonymous(context: KitContext, authorization: string | null, purpose: Purpose): Promise<Exchange> {
  return context.client.send({ method: 'GET', path: '/v1/reports', authorization, role: 'none', purpose });
}

interface RevocationScenario {
  key: RevocationKey;
  byNonAdmin: Exchange;
  afterNonAdmin: Exchange;
  /** With the other workspace's admin key, when given. */
  byOtherAdmin: Exchange | undefined;
  afterOtherAdmin: Exchange | undefined;
  /** With the admin key, when given. */
  byAdmin: Exchange | undefined;
  afterAdmin: Exchange | undefined;
}

const scenarios = new WeakMap<KitContext, Promise<RevocationScenario>>();

/**
 * One key, revoked first with the test key and with the other workspace's admin key (both must be
 * refused, the key still working), then with the admin key (after which it must be refused at once).
 */
function revocation(context: KitContext): Promise<RevocationScenario> {
  let promise = scenarios.get(context);
  if (!promise) {
    promise = (async () => {
      const key = await context.setup.revocationKey();
      const use = () => context.setup.useKeyToRevoke(key, 'auth.revocation');
      const revoke = (role: 'api' | 'otherAdmin' | 'admin', purpose: Purpose) => sendWithKey(context, 'DELETE', `/v1/keys/${key.id}`, { role, purpose });
      const byNonAdmin = await revoke('api', 'auth.revocation-needs-admin');
      const afterNonAdmin = await use();
      const byOtherAdmin = context.keys.otherAdmin ? await revoke('otherAdmin', 'auth.workspace-admin') : undefined;
      const afterOtherAdmin = byOtherAdmin && (await use());
      const byAdmin = context.keys.admin ? await revoke('admin', 'auth.revocation-immediate') : undefined;
      if (byAdmin && isSuccess(byAdmin.status)) context.setup.revoked.add(key.id);
      const afterAdmin = byAdmin && (await use());
      return { key, byNonAdmin, afterNonAdmin, byOtherAdmin, afterOtherAdmin, byAdmin, afterAdmin };
    })();
    scenarios.set(context, promise);
  }
  return promise;
}

/** Which key the checks judged: the run's own, or the one it was given. */
function keyNote({ key }: RevocationScenario): string {
  if (!key.created) return `on ${key.id}, the key of --revocable-key-id`;
  return `on ${key.id}, a key the kit made for this run${key.untouched ? `; ${key.untouched} of --revocable-key-id was left untouched` : ''}`;
}

/** Why a key given to the run that stopped working says nothing of the revocation refused before. */
function mayBeRevokedElsewhere(key: RevocationKey): string {
  return `${key.id} is a key given to the run, not one it made: another run given the same key (a pipeline running beside this one), or a person, may have revoked it meanwhile; ${ownKeyAdvice(key)}`;
}

/**
 * After a refused revocation the key must keep working. A key the run made is known to no other run,
 * so that it stops working is the implementation's doing; a key given to the run that stops working
 * is no evidence that the refused revocation took effect, unless the revocation was not refused at all.
 */
function expectKeptWorking(findings: Findings, scenario: RevocationScenario, after: Exchange, revocation: string): void {
  if (isSuccess(after.status)) return;
  if (!scenario.key.created && findings.list.length === 0)
    throw new SetupError(
      `${scenario.key.id} stopped working after ${revocation} was refused (GET /v1/reports then answered ${shown(after)}), which is no evidence that the refused revocation took effect: ${mayBeRevokedElsewhere(scenario.key)}`,
    );
  findings.expect(false, 'the key to keep working after the refused revocation', shown(after), after);
}

/** A revocation can show its effect only on a key that worked just before it. */
function expectWorkingBefore(findings: Findings, scenario: RevocationScenario, last: Exchange, revocation: string): void {
  if (isSuccess(last.status) || findings.list.length > 0) return;
  const why = scenario.key.created ? 'see auth.revocation-needs-admin' : mayBeRevokedElsewhere(scenario.key);
  throw new SetupError(
    `${scenario.key.id} no longer worked before ${revocation} (GET /v1/reports answered ${shown(last)}), so whether that revocation takes effect cannot be seen: ${why}`,
  );
}

/**
 * The admin key's revocation of a key given to the run, refused: the key may have been revoked by
 * another run first (what revoking a revoked key answers is not shown), or its id may not be the key
 * of the secret given; neither is the implementation's fault, so the check is inconclusive.
 */
function refusedAdminRevocation(scenario: RevocationScenario): SetupError {
  const { key } = scenario;
  const by = scenario.byAdmin!;
  const after = scenario.afterAdmin!;
  return isSuccess(after.status)
    ? new SetupError(
        `the revocation of ${key.id} with the admin key answered ${shown(by)} and the key still works: either the implementation refuses the admin key's revocation, or ${key.id} is not the id of the key given with --revocable-key (unknown to the implementation); check that --revocable-key-id names that key`,
      )
    : new SetupError(`the revocation of ${key.id} with the admin key answered ${shown(by)} and the key no longer works: ${mayBeRevokedElsewhere(key)}`);
}

function randomKey(): string {
  return `svc_test_${randomBytes(24).toString('hex')}`;
}

export const authProbes: ProbeSet = {
  probes: {
    'transport.https-only': async (context) => {
      const answer = await plainHttpAnswer(context);
      if ('refused' in answer) return `${answer.url}: no plain HTTP connection (${answer.refused})`;
      const got = shown({ status: answer.status, body: answer.body });
      const request = `GET ${answer.url} with a random key`;
      if (isSuccess(answer.status))
        throw new CheckFailure([{ expected: 'the plain HTTP request rejected (no connection, or any answer but a success)', got, request }]);
      // The kit sends no real key in clear, so it cannot see a key served; but an unknown key's own
      // answer shows the key was looked up, which an implementation that rejects plain HTTP never does.
      if (bodyNamesCode({ json: parseJson(answer.body), body: answer.body }, 'invalid_key')) {
        throw new CheckFailure([
          {
            expected: 'the plain HTTP request rejected for being plain HTTP, before any key is looked at',
            got: `${got}: the key was looked up, so the API is served in plain HTTP`,
            request,
          },
        ]);
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
      expectError(findings, await anonymous(context, 'Bearer', 'auth.malformed-header'), 401, 'unauthorized');
      // A working key twice: an implementation that takes the first word would serve it.
      expectError(findings, await anonymous(context, `Bearer ${context.keys.api} ${context.keys.api}`, 'auth.malformed-header'), 401, 'unauthorized');
      findings.done();
    },

    'auth.unknown-key': async (context) => {
      const findings = new Findings();
      expectError(findings, await anonymous(context, `Bearer ${randomKey()}`, 'auth.unknown-key'), 401, 'invalid_key');
      findings.done();
    },

    'auth.read-only-can-read': async (context) => {
      const report = await context.setup.firstReport();
      const findings = new Findings();
      const read = await sendWithKey(context, 'GET', `/v1/reports/${report.id}`, { role: 'readOnly', purpose: 'auth.read-only-can-read' });
      findings.expect(isSuccess(read.status), 'a 2xx answer with the report', shown(read), read);
      const list = await sendWithKey(context, 'GET', '/v1/reports', { role: 'readOnly', purpose: 'auth.read-only-can-read' });
      findings.expect(isSuccess(list.status), 'a 2xx answer with the list', shown(list), list);
      findings.done();
    },

    'auth.read-only-cannot-write': async (context) => {
      const applicant = await context.setup.applicant();
      const target = await context.setup.createReport('auth.read-only-cannot-write');
      const findings = new Findings();
      const created = await sendWithKey(context, 'POST', '/v1/reports', {
        role: 'readOnly',
        purpose: 'auth.read-only-cannot-write',
        json: JSON.parse(target.created.requestBody ?? '{}'),
      });
      expectError(findings, created, 403, 'forbidden');
      const createdId = idOf(created);
      if (isSuccess(created.status) && createdId) context.setup.reports.add(createdId);
      // The applicant the kit made, once more: a valid write, so only the key's limit can refuse it.
      const applicantWrite = await sendWithKey(context, 'POST', '/v1/applicants', {
        role: 'readOnly',
        purpose: 'auth.read-only-cannot-write',
        json: JSON.parse(applicant.created.requestBody ?? '{}'),
      });
      expectError(findings, applicantWrite, 403, 'forbidden');
      const deleted = await sendWithKey(context, 'DELETE', `/v1/reports/${target.id}`, { role: 'readOnly', purpose: 'auth.read-only-cannot-write' });
      expectError(findings, deleted, 403, 'forbidden');
      const still = await sendWithKey(context, 'GET', `/v1/reports/${target.id}`, { role: 'api', purpose: 'auth.read-only-cannot-write' });
      findings.expect(isSuccess(still.status), `${target.id} still there after the read-only DELETE`, shown(still), still);
      if (!isSuccess(still.status)) context.setup.deleted.add(target.id);
      findings.done();
    },

    'auth.read-only-cannot-upload': async (context) => {
      // The upload the test key made: a valid write, so only the key's limit can refuse it.
      await context.setup.document();
      const applicant = await context.setup.applicant();
      const upload = await context.setup.upload(applicant.id, passportFile(context.fixtures), 'auth.read-only-cannot-upload', 'readOnly');
      const findings = new Findings();
      expectError(findings, upload.uploaded, 403, 'forbidden');
      findings.done();
    },

    'auth.ip-not-allowed': async (context) => {
      const report = await context.setup.firstReport();
      const applicant = await context.setup.applicant();
      const findings = new Findings();
      expectError(findings, await sendWithKey(context, 'GET', '/v1/reports', { role: 'ipLocked', purpose: 'auth.ip-not-allowed' }), 403, 'ip_not_allowed');
      expectError(
        findings,
        await sendWithKey(context, 'GET', `/v1/reports/${report.id}`, { role: 'ipLocked', purpose: 'auth.ip-not-allowed' }),
        403,
        'ip_not_allowed',
      );
      const write = await sendWithKey(context, 'POST', '/v1/reports', {
        role: 'ipLocked',
        purpose: 'auth.ip-not-allowed',
        json: reportBody(context.fixtures, applicant.id),
      });
      expectError(findings, write, 403, 'ip_not_allowed');
      const written = idOf(write);
      if (isSuccess(write.status) && written) context.setup.reports.add(written);
      findings.done();
    },

    'auth.revocation-needs-admin': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      findings.expect(isSuccess(scenario.key.before.status), 'the key to work before any revocation', shown(scenario.key.before), scenario.key.before);
      findings.expect(
        !isSuccess(scenario.byNonAdmin.status),
        'the revocation with the test key refused (any answer but a success)',
        shown(scenario.byNonAdmin),
        scenario.byNonAdmin,
      );
      expectKeptWorking(findings, scenario, scenario.afterNonAdmin, 'its revocation with the test key');
      findings.done();
      return keyNote(scenario);
    },

    'auth.workspace-admin': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      const by = scenario.byOtherAdmin!;
      findings.expect(isSuccess(scenario.key.before.status), 'the key to work before any revocation', shown(scenario.key.before), scenario.key.before);
      findings.expect(!isSuccess(by.status), "the revocation with the other workspace's admin key refused (any answer but a success)", shown(by), by);
      expectWorkingBefore(findings, scenario, scenario.afterNonAdmin, "its revocation with the other workspace's admin key");
      expectKeptWorking(findings, scenario, scenario.afterOtherAdmin!, "its revocation with the other workspace's admin key");
      findings.done();
      return keyNote(scenario);
    },

    'auth.revocation-immediate': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      const by = scenario.byAdmin!;
      findings.expect(isSuccess(scenario.key.before.status), 'the key to work before its revocation', shown(scenario.key.before), scenario.key.before);
      expectWorkingBefore(findings, scenario, scenario.afterOtherAdmin ?? scenario.afterNonAdmin, 'its revocation with the admin key');
      if (!isSuccess(by.status) && !scenario.key.created) throw refusedAdminRevocation(scenario);
      if (findings.expect(isSuccess(by.status), 'a 2xx answer to the revocation with the admin key', shown(by), by))
        expectError(findings, scenario.afterAdmin!, 401, 'invalid_key');
      findings.done();
      return keyNote(scenario);
    },

    /** Decided by the revocation with the admin key, when a key of the dashboard was given: that key can be revoked only once, so Pact does not revoke it too. */
    'keys.revoke': async (context) => {
      const scenario = await revocation(context);
      const by = scenario.byAdmin!;
      if (!isSuccess(by.status) && !scenario.key.created) throw refusedAdminRevocation(scenario);
      const findings = new Findings();
      findings.expect(isSuccess(by.status), 'a 2xx answer', shown(by), by);
      findings.done();
      return keyNote(scenario);
    },

    'strict.revocation-forbidden': async (context) => {
      const scenario = await revocation(context);
      const findings = new Findings();
      expectError(findings, scenario.byNonAdmin, 403, 'forbidden');
      findings.done();
      return keyNote(scenario);
    },

    'auth.workspace-isolation': async (context) => {
      const target = await context.setup.createReport('auth.workspace-isolation');
      const findings = new Findings();
      const read = await sendWithKey(context, 'GET', `/v1/reports/${target.id}`, { role: 'other', purpose: 'auth.workspace-isolation' });
      findings.expect(!stillThere(read, target.id), `no access to ${target.id} from another workspace`, shown(read), read);
      const search = await searchList(context, target, 'other', 'auth.workspace-isolation');
      findings.expect(
        isSuccess(search.first.status) && search.state !== 'found',
        `the other workspace's list (2xx) without ${target.id}`,
        search.state === 'found' ? `${target.id} in it (${search.paging})` : shown(search.first),
        search.first,
      );
      // What a DELETE of another workspace's report answers is not shown; that the report survives it is stated.
      await sendWithKey(context, 'DELETE', `/v1/reports/${target.id}`, { role: 'other', purpose: 'auth.workspace-isolation' });
      const still = await sendWithKey(context, 'GET', `/v1/reports/${target.id}`, { role: 'api', purpose: 'auth.workspace-isolation' });
      findings.expect(isSuccess(still.status), `${target.id} still there for its own workspace`, shown(still), still);
      if (!isSuccess(still.status)) context.setup.deleted.add(target.id);
      findings.done();
      // Absent from the pages read is no evidence that the rest of the other workspace's list is without it.
      if (search.state === 'unknown') unreadList(search, `${target.id} is not among the reports read, but the other workspace's`);
      return `${target.id} out of the other workspace's reach and list (${search.paging})`;
    },

    'auth.workspace-applicant': async (context) => {
      const theirs = await sendWithKey(context, 'POST', '/v1/applicants', {
        role: 'other',
        purpose: 'auth.workspace-applicant',
        json: context.fixtures.applicant,
      });
      const applicantId = idOf(theirs);
      if (!isSuccess(theirs.status) || !applicantId)
        throw new SetupError(`the other workspace's key could not create an applicant: POST /v1/applicants answered ${shown(theirs)}`);
      const created = await sendWithKey(context, 'POST', '/v1/reports', {
        role: 'api',
        purpose: 'auth.workspace-applicant',
        json: reportBody(context.fixtures, applicantId),
      });
      const reportId = idOf(created);
      if (!isSuccess(created.status)) return `refused: ${created.status}`;
      if (!reportId) return `answered ${created.status} without a report id`;
      // Accepted: the analysis must then fail, as it cannot read an applicant of another workspace.
      context.setup.reports.add(reportId);
      const finish = await context.setup.finishOf(reportId, 'auth.workspace-applicant');
      if (field(finish, 'status') === 'completed') {
        throw new CheckFailure([
          {
            expected: `the report refused, or failed, for ${applicantId} of another workspace`,
            got: `${reportId} completed: the other workspace's applicant was analysed`,
            request: 'POST /v1/reports with the test key',
          },
        ]);
      }
      return `${reportId} accepted, then ${JSON.stringify(field(finish, 'status') ?? finish.status)}`;
    },
  },
};
