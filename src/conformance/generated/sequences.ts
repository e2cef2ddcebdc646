/**
 * generated.sequences: random sequences of creations, reads, lists, deletions and uploads (and,
 * with the admin key where the implementation makes keys, a key of the sequence's own used and
 * revoked), checked step by step against a model of the stated rules, fast-check's model-based
 * testing: a deleted report stays gone from every read and list whatever follows (part 4 rule 2),
 * another workspace's key reaches none of them (part 5), a revoked key is refused at once (part 5),
 * every answer carries X-RateLimit-Remaining (part 8). Each sequence starts with an applicant of
 * its own, so that its reports are all the applicant has, and ends with a read of every report it made. A failing sequence is shrunk to the shortest that still fails, each shorter one
 * run again with reports of its own. Once all have run, each report they made must have had one
 * report.created, and no two reports the same event id (part 6).
 */
import fc from 'fast-check';
import { listItems } from '../../api/list-answer.js';
import { STATED } from '../../spec/stated.js';
import { findSecret, type KitContext, SUPPLY } from '../context.js';
import { describeEncoding, passportFile, reportBody } from '../fixtures.js';
import type { Exchange } from '../http.js';
import { bodyNamesCode, CheckSkipped, type Finding, isSuccess, ReplayableFailure, SetupError, shown } from '../outcome.js';
import { stillThere } from '../probes/reports.js';
import { eventOf, mentions } from '../receiver.js';
import { idOf } from '../requests.js';
import { checkProperty, type Trial } from './property.js';
import { type Credential, type GeneratedRequest, holds, jsonRequest } from './requests.js';

const ID = 'generated.sequences';

/** The most reports one sequence makes, and the most steps it takes after its first creation and before its closing reads. */
const MAX_REPORTS = 3;
const MAX_STEPS = 24;
/** What a sequence costs on average: its applicant, its steps (some nine), its closing reads and the deletions at the end of the run. */
const SEQUENCE_COST = 16;

interface ModelReport {
  /** The variable a replay keeps its id in: REPORT_1… */
  name: string;
  deleted: boolean;
}

/** What the stated rules say the workspace holds of the sequence's own: its reports, whether each was deleted, its key's state. */
interface Model {
  reports: ModelReport[];
  key: 'none' | 'live' | 'revoked' | 'unavailable';
}

/** What the sequence can do in this run. */
interface Abilities {
  /** Another workspace's key (`--other-workspace-key`). */
  other: boolean;
  /** An upload in the fixtures' encoding (or, at level strict, openapi.yaml's). */
  upload: boolean;
  /** Keys made with the admin key through POST /v1/keys: the implementation made the run's key to revoke so. */
  keys: boolean;
}

/** The implementation as one sequence sees it: the ids its reports got, its key, the trial its steps are recorded in. */
interface Real {
  context: KitContext;
  trial: Trial;
  applicantId: string;
  ids: Map<string, string>;
  key: { id: string; secret: string } | undefined;
  /** Each report the sequence made: its creation's step and the deliveries before it, for its report.created. */
  made: MadeReport[];
}

interface MadeReport {
  id: string;
  step: string;
  deliveriesBefore: number;
}

const KEY_VARIABLE = 'KEY_OF_THE_SEQUENCE';

/** Sends a step of the sequence; every answer, whatever it is, carries X-RateLimit-Remaining (part 8). */
async function step(real: Real, request: GeneratedRequest, cost = 1): Promise<Exchange> {
  const answer = await real.trial.send(request, cost);
  const remaining = answer.headers['x-ratelimit-remaining'];
  real.trial.expect(
    remaining !== undefined && remaining.trim() !== '',
    'an X-RateLimit-Remaining header on every answer (part 8)',
    `${answer.status} without it`,
  );
  return answer;
}

function reportRequest(real: Real, method: string, report: ModelReport, credential: Credential = { role: 'api' }): GeneratedRequest {
  return { method, path: `/v1/reports/${real.ids.get(report.name)!}`, shownPath: `/v1/reports/$${report.name}`, credential };
}

/** A read of one of the sequence's reports: there while not deleted, gone once deleted, whatever came between. */
async function expectRead(real: Real, report: ModelReport, when: string): Promise<void> {
  const id = real.ids.get(report.name)!;
  const read = await step(real, reportRequest(real, 'GET', report));
  if (report.deleted) real.trial.expect(!stillThere(read, id), `${report.name} (${id}) gone ${when}: it was deleted`, shown(read));
  else real.trial.expect(stillThere(read, id), `${report.name} (${id}) readable ${when} (2xx with the report)`, shown(read));
}

abstract class SequenceCommand implements fc.AsyncCommand<Model, Real> {
  abstract check(model: Readonly<Model>): boolean;
  abstract run(model: Model, real: Real): Promise<void>;
  abstract toString(): string;
}

class CreateReport extends SequenceCommand {
  check = (model: Readonly<Model>) => model.reports.length < MAX_REPORTS;
  async run(model: Model, real: Real): Promise<void> {
    const deliveriesBefore = real.context.receiver?.deliveries.length ?? 0;
    const created = await step(real, jsonRequest('POST', '/v1/reports', { role: 'api' }, reportBody(real.context.fixtures, real.applicantId)), 2);
    const id = idOf(created);
    if (!isSuccess(created.status) || !id) throw new SetupError(`a sequence could not make its report: POST /v1/reports answered ${shown(created)}`);
    real.context.setup.reports.add(id);
    const name = `REPORT_${model.reports.length + 1}`;
    real.trial.annotate(`: ${name} (${id})`);
    real.trial.expect(STATED.reportId.test(id), `the report's id ${STATED.reportId.says}`, JSON.stringify(id));
    real.trial.expect(![...real.ids.values()].includes(id), `a new id for ${name}`, `${id}, the id of an earlier report of the sequence`);
    real.ids.set(name, id);
    real.made.push({ id, step: real.trial.steps.at(-1)!, deliveriesBefore });
    model.reports.push({ name, deleted: false });
  }
  toString = () => 'create';
}

class ReadReport extends SequenceCommand {
  constructor(private readonly index: number) {
    super();
  }
  check = (model: Readonly<Model>) => model.reports.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    await expectRead(real, model.reports[this.index % model.reports.length]!, 'when read');
  }
  toString = () => `read(${this.index})`;
}

class ListReports extends SequenceCommand {
  check = (model: Readonly<Model>) => model.reports.some((report) => report.deleted);
  /** The list's first page: none of the deleted reports in it (which page a report that is there is on is not shown). */
  async run(model: Model, real: Real): Promise<void> {
    const list = await step(real, { method: 'GET', path: '/v1/reports', credential: { role: 'api' } });
    if (!real.trial.expect(isSuccess(list.status), 'a 2xx answer with the list', shown(list))) return;
    const listed = new Set((listItems(list.json) ?? []).map((item) => (item as { id?: unknown } | null)?.id));
    for (const report of model.reports.filter((item) => item.deleted)) {
      const id = real.ids.get(report.name)!;
      real.trial.expect(!listed.has(id), `${report.name} (${id}) absent from the list: it was deleted`, `${id} listed`);
    }
  }
  toString = () => 'list';
}

class DeleteReport extends SequenceCommand {
  constructor(private readonly index: number) {
    super();
  }
  check = (model: Readonly<Model>) => model.reports.some((report) => !report.deleted);
  async run(model: Model, real: Real): Promise<void> {
    const live = model.reports.filter((report) => !report.deleted);
    const report = live[this.index % live.length]!;
    const deleted = await step(real, reportRequest(real, 'DELETE', report));
    if (!real.trial.expect(isSuccess(deleted.status), `a 2xx answer to the DELETE of ${report.name}`, shown(deleted))) return;
    report.deleted = true;
    real.context.setup.deleted.add(real.ids.get(report.name)!);
  }
  toString = () => `delete(${this.index})`;
}

/** An upload for the sequence's applicant: a later write, after which what was deleted stays deleted. Whether it is taken is not judged (how many documents an applicant has is not shown). */
class Upload extends SequenceCommand {
  constructor(private readonly abilities: Abilities) {
    super();
  }
  check = () => this.abilities.upload;
  async run(_model: Model, real: Real): Promise<void> {
    const { context } = real;
    const file = passportFile(context.fixtures);
    const upload = await context.setup.documentRequest(real.applicantId, file);
    const bodyShown = `${file.name} for ${real.applicantId}, in the upload encoding of --fixtures (${describeEncoding(context.fixtures.document)})`;
    await step(real, { method: 'POST', path: upload.path, credential: { role: 'api' }, headers: upload.headers, body: upload.body, bodyShown });
  }
  toString = () => 'upload';
}

class ReadAsOther extends SequenceCommand {
  constructor(
    private readonly index: number,
    private readonly abilities: Abilities,
  ) {
    super();
  }
  check = (model: Readonly<Model>) => this.abilities.other && model.reports.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const report = model.reports[this.index % model.reports.length]!;
    const id = real.ids.get(report.name)!;
    const read = await step(real, reportRequest(real, 'GET', report, { role: 'other' }));
    real.trial.expect(!stillThere(read, id), `no access to ${report.name} (${id}) with another workspace's key`, shown(read));
  }
  toString = () => `read-as-other(${this.index})`;
}

/** Another workspace's DELETE: whatever it answers, the report must stay, which the reads after it judge. */
class DeleteAsOther extends SequenceCommand {
  constructor(
    private readonly index: number,
    private readonly abilities: Abilities,
  ) {
    super();
  }
  check = (model: Readonly<Model>) => this.abilities.other && model.reports.some((report) => !report.deleted);
  async run(model: Model, real: Real): Promise<void> {
    const live = model.reports.filter((report) => !report.deleted);
    await step(real, reportRequest(real, 'DELETE', live[this.index % live.length]!, { role: 'other' }));
  }
  toString = () => `delete-as-other(${this.index})`;
}

class MakeKey extends SequenceCommand {
  constructor(private readonly abilities: Abilities) {
    super();
  }
  check = (model: Readonly<Model>) => this.abilities.keys && model.key === 'none';
  async run(model: Model, real: Real): Promise<void> {
    const created = await step(real, jsonRequest('POST', '/v1/keys', { role: 'admin' }, { name: 'svc contract verify generated.sequences' }), 2);
    const id = idOf(created);
    const secret = findSecret(created.json);
    if (!isSuccess(created.status) || !id || !secret) {
      model.key = 'unavailable';
      return;
    }
    real.context.setup.keys.set(id, secret);
    real.key = { id, secret };
    real.trial.annotate(`: ${KEY_VARIABLE} (the secret of ${id})`);
    model.key = 'live';
  }
  toString = () => 'make-key';
}

class UseKey extends SequenceCommand {
  check = (model: Readonly<Model>) => model.key === 'live' || model.key === 'revoked';
  async run(model: Model, real: Real): Promise<void> {
    const key = real.key!;
    const used = await step(real, { method: 'GET', path: '/v1/reports', credential: { role: 'revocable', secret: key.secret, variable: KEY_VARIABLE } });
    if (model.key === 'live') real.trial.expect(isSuccess(used.status), `${KEY_VARIABLE} (${key.id}) working until revoked (2xx)`, shown(used));
    else
      real.trial.expect(
        used.status === 401 && bodyNamesCode(used, 'invalid_key'),
        `401 with the code invalid_key for ${KEY_VARIABLE} (${key.id}): it was revoked`,
        shown(used),
      );
  }
  toString = () => 'use-key';
}

class RevokeKey extends SequenceCommand {
  check = (model: Readonly<Model>) => model.key === 'live';
  async run(model: Model, real: Real): Promise<void> {
    const key = real.key!;
    const revoked = await step(real, { method: 'DELETE', path: `/v1/keys/${key.id}`, credential: { role: 'admin' } });
    if (!real.trial.expect(isSuccess(revoked.status), `a 2xx answer to the revocation of ${KEY_VARIABLE} (${key.id}) with the admin key`, shown(revoked)))
      return;
    real.context.setup.revoked.add(key.id);
    model.key = 'revoked';
  }
  toString = () => 'revoke-key';
}

/**
 * The steps a sequence is made of, after its first creation. Deletions and later writes come up
 * more often than the others, so that what follows a deletion is tried most (a sequence of some
 * nine steps has a deletion followed by an upload two times in three).
 */
function commands(abilities: Abilities): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>> {
  const index = fc.nat({ max: MAX_REPORTS - 1 });
  const create = fc.constant(new CreateReport());
  const remove = index.map((at) => new DeleteReport(at));
  const upload = fc.constant(new Upload(abilities));
  return fc.commands(
    [
      create,
      create,
      remove,
      remove,
      remove,
      remove,
      upload,
      upload,
      upload,
      upload,
      index.map((at) => new ReadReport(at)),
      fc.constant(new ListReports()),
      index.map((at) => new ReadAsOther(at, abilities)),
      index.map((at) => new DeleteAsOther(at, abilities)),
      fc.constant(new MakeKey(abilities)),
      fc.constant(new UseKey()),
      fc.constant(new RevokeKey()),
    ],
    { maxCommands: MAX_STEPS, size: 'max' },
  );
}

/** What this run lets sequences do. */
async function abilitiesOf(context: KitContext): Promise<Abilities> {
  const upload = context.fixtures.given.document || context.level === 'strict';
  let keys = false;
  if (context.keys.admin) {
    // The run's key to revoke shows whether the implementation makes keys through the API; it is made once for the revocation checks.
    const key = await context.setup.keyToRevoke('revocation').catch(() => undefined);
    keys = Boolean(key?.created);
  }
  return { other: holds(context.keys, 'other'), upload, keys };
}

/**
 * Once every sequence has run: each report they made had at most one report.created (an event
 * sent again keeps its id), and no two of them share an event id. Waits, while deliveries arrive,
 * until each had one or the event timeout passed, once for them all; a report with none is events.report-created's.
 */
async function reportCreatedEvents(context: KitContext, made: MadeReport[]): Promise<{ findings: Finding[]; steps: string[]; note: string }> {
  const receiver = context.receiver;
  if (!receiver || made.length === 0) return { findings: [], steps: [], note: '' };
  const since = Math.min(...made.map((report) => report.deliveriesBefore));
  const isCreated = (id: string) => (delivery: (typeof receiver.deliveries)[number]) =>
    eventOf(delivery).type === 'report.created' && mentions(delivery.json, id);
  await receiver.waitForEach(
    made.map((report) => ({ predicate: isCreated(report.id), since: report.deliveriesBefore })),
    context.timeouts.eventMs,
  );
  const findings: Finding[] = [];
  const steps: string[] = [];
  const owners = new Map<string, string>();
  let seen = 0;
  for (const report of made) {
    const ids = new Set(
      receiver.deliveries
        .slice(since)
        .filter(isCreated(report.id))
        .map((delivery) => eventOf(delivery).id ?? ''),
    );
    if (ids.size > 0) seen++;
    if (ids.size > 1) {
      findings.push({ expected: `one report.created for ${report.id}`, got: `${ids.size}, with the ids ${[...ids].join(', ')}`, request: report.step });
      steps.push(report.step);
    }
    for (const id of ids) {
      const owner = owners.get(id);
      if (owner && owner !== report.id) {
        findings.push({ expected: `an event id of its own for the report.created of ${report.id}`, got: `${id}, the id of ${owner}'s`, request: report.step });
        steps.push(report.step);
      }
      owners.set(id, report.id);
    }
  }
  return { findings, steps, note: `; report.created for ${seen} of the ${made.length} reports, one each, ids unique` };
}

/** The sequence's own applicant, made from the fixtures' body: whatever the sequence does to its reports, no other check's are the applicant's. */
async function ownApplicant(context: KitContext, trial: Trial): Promise<string> {
  const created = await trial.send(jsonRequest('POST', '/v1/applicants', { role: 'api' }, context.fixtures.applicant));
  const id = idOf(created);
  if (!isSuccess(created.status) || !id)
    throw new SetupError(`a sequence could not make its applicant: POST /v1/applicants answered ${shown(created)}`, SUPPLY.applicant);
  trial.annotate(`: ${id}`);
  return id;
}

export const sequenceProbes = {
  [ID]: async (context: KitContext) => {
    const generated = context.generated!;
    const runs = Math.floor(generated.budget(ID).allowance / SEQUENCE_COST);
    if (runs < 1) throw new CheckSkipped(`no room for generated requests: ${generated.why}; give --generated-requests to send some`);
    const abilities = await abilitiesOf(context);
    const made: MadeReport[] = [];
    let longest = 0;
    const run = await checkProperty({
      context,
      id: ID,
      arbitrary: commands(abilities),
      runs,
      trial: async (steps, trial) => {
        const model: Model = { reports: [], key: 'none' };
        const real: Real = { context, trial, applicantId: await ownApplicant(context, trial), ids: new Map(), key: undefined, made: [] };
        try {
          // Every sequence starts with a report, so that its first steps have one to act on.
          await new CreateReport().run(model, real);
          await fc.asyncModelRun(() => ({ model, real }), steps);
          for (const report of model.reports) await expectRead(real, report, 'at the end of the sequence');
        } finally {
          made.push(...real.made);
          longest = Math.max(longest, trial.steps.length);
        }
      },
    });
    const events = await reportCreatedEvents(context, made);
    if (events.findings.length > 0) throw new ReplayableFailure(events.findings, run.seed, events.steps);
    const can = [abilities.upload && 'uploads', abilities.other && "another workspace's key", abilities.keys && 'a key made and revoked'].filter(Boolean);
    return `${run.tried} generated sequences of up to ${longest} requests (seed ${run.seed})${can.length > 0 ? `, with ${can.join(', ')}` : ''}${events.note}${run.cutShort ? '; the budget cut the last short' : ''}`;
  },
};
