/**
 * generated.credentials: every stated operation with every credential the kit holds, each getting
 * its stated outcome (parts 4, 5 and 7), not only on the probes' sample: no key and malformed
 * headers (generated) 401 unauthorized; unknown keys of every prefix (generated) and a revoked key
 * 401 invalid_key; the read-only key reads and is refused every write with 403 forbidden; the
 * IP-locked key 403 ip_not_allowed; another workspace's key reaches nothing of this one's; no key but
 * the admin key revokes one. A credential whose outcome on an operation is not stated (the admin key
 * on reports) is not sent there.
 */
import fc from 'fast-check';
import type { KitContext } from '../context.js';
import { findSecret } from '../context.js';
import { describeEncoding, passportFile, reportBody } from '../fixtures.js';
import type { Exchange } from '../http.js';
import { bodyNamesCode, CheckSkipped, isSuccess, ReplayableFailure, shown } from '../outcome.js';
import { stillThere } from '../probes/reports.js';
import { idOf } from '../requests.js';
import { malformedHeaders, unknownKeys } from './arbitraries.js';
import { type GeneratedRequest, type Credential, holds, jsonRequest, type KeyRole } from './requests.js';
import { runProperty, Trial } from './property.js';

const ID = 'generated.credentials';

type OperationName = 'list' | 'read' | 'create' | 'delete' | 'applicant' | 'upload' | 'revoke';

/** What the kit's report and key, which the operations act on, are at a moment of the check. */
interface Targets {
  report: string;
  /** A key the check made with the admin key; undefined where the implementation makes none through the API. */
  key: { id: string; secret: string } | undefined;
  applicantId: string;
}

interface Operation {
  name: OperationName;
  request(targets: Targets, credential: Credential): Promise<GeneratedRequest>;
  /** Whether a success may have made a report (deleted at the end of the run). */
  creates: boolean;
}

/** What a credential must get on an operation; `after`: what must still hold once it was sent (the report, the key). */
interface Expectation {
  expected: string;
  ok(answer: Exchange, targets: Targets): boolean;
}

const error = (status: number, code: string): Expectation => ({
  expected: `${status} with the code ${code}`,
  ok: (answer) => answer.status === status && bodyNamesCode(answer, code),
});
const SUCCESS: Expectation = { expected: 'a 2xx answer', ok: (answer) => isSuccess(answer.status) };
const REFUSED: Expectation = { expected: 'a refusal (any answer but a success)', ok: (answer) => !isSuccess(answer.status) };
const NOT_THE_REPORT: Expectation = { expected: "no access to the kit's report", ok: (answer, targets) => !stillThere(answer, targets.report) };
/** The other workspace's list: its own, without the kit's report (on its first page; auth.workspace-isolation reads it all). */
const ITS_OWN_LIST: Expectation = {
  expected: "a 2xx answer without the kit's report on its first page",
  ok: (answer, targets) => isSuccess(answer.status) && !JSON.stringify(answer.json ?? null).includes(JSON.stringify(targets.report)),
};
/** Whatever it answers, what the operation acts on must survive it: judged by the read that follows. */
const ANY: Expectation = { expected: 'any answer', ok: () => true };

interface CredentialClass {
  /** As a finding names it. */
  name: string;
  credential: fc.Arbitrary<Credential>;
  /** What it must get on each operation; absent where the specification states nothing (it is then not sent). */
  expect: Partial<Record<OperationName, Expectation>>;
}

const ALL: OperationName[] = ['list', 'read', 'create', 'delete', 'applicant', 'upload', 'revoke'];
const everywhere = (expectation: Expectation) => Object.fromEntries(ALL.map((name) => [name, expectation])) as Record<OperationName, Expectation>;
const key = (role: KeyRole): fc.Arbitrary<Credential> => fc.constant({ role });

/** The credentials the run holds, each with its stated outcomes; the revoked key comes later, once the check revoked one. */
function credentialClasses(context: KitContext): CredentialClass[] {
  const { keys } = context;
  const classes: CredentialClass[] = [
    { name: 'no Authorization header', credential: fc.constant({ role: 'none', header: null, shown: null }), expect: everywhere(error(401, 'unauthorized')) },
    {
      name: 'a malformed Authorization header',
      credential: malformedHeaders(keys.api, 'SVC_API_KEY').map(({ header, shown: text }) => ({ role: 'none', header, shown: text })),
      expect: everywhere(error(401, 'unauthorized')),
    },
    {
      name: 'an unknown key',
      credential: unknownKeys.map(({ header, shown: text }) => ({ role: 'none', header, shown: text })),
      expect: everywhere(error(401, 'invalid_key')),
    },
  ];
  const forbidden = error(403, 'forbidden');
  if (holds(keys, 'readOnly'))
    classes.push({
      name: 'the read-only key',
      credential: key('readOnly'),
      expect: { list: SUCCESS, read: SUCCESS, create: forbidden, delete: forbidden, applicant: forbidden, upload: forbidden, revoke: REFUSED },
    });
  if (holds(keys, 'ipLocked')) {
    const locked = error(403, 'ip_not_allowed');
    classes.push({ name: 'the IP-locked key', credential: key('ipLocked'), expect: { ...everywhere(locked), revoke: REFUSED } });
  }
  if (holds(keys, 'other'))
    classes.push({
      name: "the other workspace's key",
      credential: key('other'),
      expect: { list: ITS_OWN_LIST, read: NOT_THE_REPORT, delete: ANY, revoke: REFUSED },
    });
  if (holds(keys, 'otherAdmin')) classes.push({ name: "the other workspace's admin key", credential: key('otherAdmin'), expect: { revoke: REFUSED } });
  return classes;
}

function operations(context: KitContext): Operation[] {
  const { fixtures } = context;
  const all: Operation[] = [
    { name: 'list', creates: false, request: async (_, credential) => ({ method: 'GET', path: '/v1/reports', credential }) },
    { name: 'read', creates: false, request: async (targets, credential) => ({ method: 'GET', path: `/v1/reports/${targets.report}`, credential }) },
    {
      name: 'create',
      creates: true,
      request: async (targets, credential) => jsonRequest('POST', '/v1/reports', credential, reportBody(fixtures, targets.applicantId)),
    },
    { name: 'delete', creates: false, request: async (targets, credential) => ({ method: 'DELETE', path: `/v1/reports/${targets.report}`, credential }) },
    { name: 'applicant', creates: false, request: async (_, credential) => jsonRequest('POST', '/v1/applicants', credential, fixtures.applicant) },
    {
      name: 'revoke',
      creates: false,
      request: async (targets, credential) => ({ method: 'DELETE', path: `/v1/keys/${targets.key?.id ?? 'key_svckitnone'}`, credential }),
    },
  ];
  // The upload's encoding is not shown: it is sent only in the fixtures' (or, at level strict, openapi.yaml's).
  if (fixtures.given.document || context.level === 'strict') {
    all.push({
      name: 'upload',
      creates: false,
      request: async (targets, credential) => {
        const file = passportFile(fixtures);
        const upload = await context.setup.documentRequest(targets.applicantId, file);
        const bodyShown = `${file.name} for ${targets.applicantId}, in the upload encoding of --fixtures (${describeEncoding(fixtures.document)})`;
        return { method: 'POST', path: upload.path, credential, headers: upload.headers, body: upload.body, bodyShown };
      },
    });
  }
  return all;
}

interface Cell {
  credential: CredentialClass;
  operation: Operation;
}

/** What the check needs besides its cells: its report and its key made, each refused DELETE's read after it, the revocation. */
const SETUP_COST = 6;

/** A cell's requests: its own (and the DELETE of a report it may have made), and the read after a DELETE or a revocation. */
function costOf(operation: Operation): number {
  return (operation.creates ? 2 : 1) + (operation.name === 'delete' || operation.name === 'revoke' ? 1 : 0);
}

/** The cells the budget affords: all of them, else a sample drawn from the seed. */
function affordable(cells: Cell[], allowance: number, seed: number): { chosen: Cell[]; left: number } {
  const cost = (cell: Cell) => costOf(cell.operation);
  const total = cells.reduce((sum, cell) => sum + cost(cell), 0);
  if (total <= allowance) return { chosen: cells, left: 0 };
  const shuffled = fc.sample(fc.shuffledSubarray(cells, { minLength: cells.length, maxLength: cells.length }), { seed, numRuns: 1 })[0]!;
  const chosen: Cell[] = [];
  let spent = 0;
  for (const cell of shuffled) {
    if (spent + cost(cell) > allowance) continue;
    chosen.push(cell);
    spent += cost(cell);
  }
  return { chosen, left: cells.length - chosen.length };
}

/** The variable a replay gives the secret of the check's key in (it is never shown). */
const KEY_VARIABLE = 'KEY_MADE_BY_THE_KIT';

class CredentialsCheck {
  private readonly failed: Trial[] = [];
  private targets!: Targets;
  /** The check's own requests outside its cells (its report, its key), counted against its budget. */
  private readonly setup: Trial;
  private revoked = false;

  constructor(private readonly context: KitContext) {
    this.setup = new Trial(context, ID, this.generated.budget(ID), false);
  }

  private get generated() {
    return this.context.generated!;
  }

  async run(): Promise<string> {
    const { context } = this;
    const budget = this.generated.budget(ID);
    if (budget.allowance < SETUP_COST + 1)
      throw new CheckSkipped(`no room for generated requests: ${this.generated.why}; give --generated-requests to send some`);
    const applicant = await context.setup.applicant('generated');
    this.targets = { applicantId: applicant.id, report: '', key: undefined };
    this.targets.report = await this.newReport();
    this.targets.key = await this.newKey();
    const classes = credentialClasses(context);
    const ops = operations(context);
    const cells = classes.flatMap((credential) => ops.filter((operation) => credential.expect[operation.name]).map((operation) => ({ credential, operation })));
    // Without a key of its own, a refused revocation of a key that does not exist shows nothing; the 401s still do.
    const judged = cells.filter((cell) => cell.operation.name !== 'revoke' || this.targets.key || cell.credential.expect.revoke!.expected.startsWith('401'));
    const revoked = this.targets.key ? ops.length : 0;
    const revokedCost = this.targets.key ? 1 + ops.reduce((sum, operation) => sum + costOf(operation), 0) : 0;
    const { chosen, left } = affordable(judged, budget.allowance - SETUP_COST - revokedCost, this.generated.seed);
    for (const cell of chosen) await this.cell(cell);
    const revokedCells = await this.revokedKey(ops);
    if (this.failed.length > 0)
      throw new ReplayableFailure(
        this.failed.flatMap((trial) => trial.findings),
        this.generated.seed,
        this.failed.flatMap((trial) => trial.steps),
      );
    const names = [...classes.map((item) => item.name), ...(revokedCells > 0 ? ['a revoked key'] : [])];
    const sample = left > 0 ? `, a sample of ${chosen.length + revokedCells} of ${judged.length + revoked} drawn from the seed: ${this.generated.why}` : '';
    const unheld = revoked > 0 ? '' : "; no key of the check's own to revoke (none made through POST /v1/keys), so no revoked key and no refused revocation";
    return `${chosen.length + revokedCells} operations and credentials (${names.join(', ')}; seed ${this.generated.seed})${sample}${unheld}`;
  }

  private async newReport(): Promise<string> {
    const created = await this.setup.send(jsonRequest('POST', '/v1/reports', { role: 'api' }, reportBody(this.context.fixtures, this.targets.applicantId)), 2);
    const id = idOf(created);
    if (!isSuccess(created.status) || !id) throw new CheckSkipped(`the check could not make its report: POST /v1/reports answered ${shown(created)}`);
    this.context.setup.reports.add(id);
    return id;
  }

  /** A key of the check's own, made with the admin key through POST /v1/keys (not shown by the specification); none where it makes none. */
  private async newKey(): Promise<Targets['key']> {
    if (!this.context.keys.admin) return undefined;
    const created = await this.setup.send(jsonRequest('POST', '/v1/keys', { role: 'admin' }, { name: 'svc contract verify generated.credentials' }));
    const id = idOf(created);
    const secret = findSecret(created.json);
    if (!isSuccess(created.status) || !id || !secret) return undefined;
    this.context.setup.keys.set(id, secret);
    return { id, secret };
  }

  /** One cell: the operation with the credential (a generated one shrunk to its smallest on a failure), then what must have survived it. */
  private async cell({ credential, operation }: Cell, context: string[] = []): Promise<void> {
    const expectation = credential.expect[operation.name]!;
    const run = await runProperty({
      context: this.context,
      id: ID,
      arbitrary: credential.credential,
      runs: 1,
      salt: ` ${credential.name} ${operation.name}`,
      trial: async (value, trial) => {
        const answer = await trial.send(await operation.request(this.targets, value), operation.creates ? 2 : 1);
        const made = operation.creates && isSuccess(answer.status) ? idOf(answer) : undefined;
        if (made) this.context.setup.reports.add(made);
        trial.expect(expectation.ok(answer, this.targets), `${expectation.expected} to ${credential.name}`, shown(answer));
        if (operation.name === 'delete') await this.reportSurvived(trial, credential.name);
        if (operation.name === 'revoke' && this.targets.key && !this.revoked) await this.keySurvived(trial, credential.name);
      },
    });
    if (run.smallest) {
      run.smallest.steps.unshift(...context);
      this.failed.push(run.smallest);
    }
  }

  private async reportSurvived(trial: Trial, by: string): Promise<void> {
    const read = await trial.send({ method: 'GET', path: `/v1/reports/${this.targets.report}`, credential: { role: 'api' } });
    if (trial.expect(stillThere(read, this.targets.report), `${this.targets.report} still there after the DELETE with ${by}`, shown(read))) return;
    this.context.setup.deleted.add(this.targets.report);
    this.targets.report = await this.newReport();
  }

  private async keySurvived(trial: Trial, by: string): Promise<void> {
    const key = this.targets.key!;
    const use = await trial.send({ method: 'GET', path: '/v1/reports', credential: { role: 'revocable', secret: key.secret, variable: KEY_VARIABLE } });
    if (trial.expect(isSuccess(use.status), `${key.id} still working after its revocation with ${by}`, shown(use))) return;
    this.context.setup.revoked.add(key.id);
    this.targets.key = await this.newKey();
  }

  /** The check's key revoked with the admin key, then every operation with it: 401 invalid_key. */
  private async revokedKey(ops: Operation[]): Promise<number> {
    const key = this.targets.key;
    if (!key) return 0;
    const revocation = await runProperty({
      context: this.context,
      id: ID,
      arbitrary: fc.constant<Credential>({ role: 'admin' }),
      runs: 1,
      salt: ' revocation',
      trial: async (credential, trial) => {
        const answer = await trial.send({ method: 'DELETE', path: `/v1/keys/${key.id}`, credential });
        trial.expect(isSuccess(answer.status), `a 2xx answer to the revocation of ${key.id} with the admin key`, shown(answer));
      },
    });
    if (revocation.smallest) {
      this.failed.push(revocation.smallest);
      return 0;
    }
    this.context.setup.revoked.add(key.id);
    this.revoked = true;
    const revokedClass: CredentialClass = {
      name: `${key.id}, revoked`,
      credential: fc.constant({ role: 'revocable', secret: key.secret, variable: KEY_VARIABLE }),
      expect: everywhere(error(401, 'invalid_key')),
    };
    const made = `# ${KEY_VARIABLE}: the secret of ${key.id}, a key made with POST /v1/keys and revoked with DELETE /v1/keys/${key.id}, both with $SVC_ADMIN_KEY`;
    for (const operation of ops) await this.cell({ credential: revokedClass, operation }, [made]);
    return ops.length;
  }
}

export const credentialProbes = {
  [ID]: (context: KitContext) => new CredentialsCheck(context).run(),
};
