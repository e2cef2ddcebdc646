import { ERROR_CODES as STATED_ERROR_CODES, OPERATIONS as STATED_OPERATIONS } from '../../api/operations.js';
import { findProblems, type SchemaName } from '../../api/validate.js';
import { EVENT_SCHEMAS } from '../../webhooks/envelope.js';
import { describeScheme, verifySignature } from '../../webhooks/signature.js';
import type { KitContext } from '../context.js';
import { sendWithKey } from '../requests.js';
import type { Exchange } from '../http.js';
import { CheckFailure, CheckSkipped, Findings, isSuccess, requestLine, SetupError, shown, shownValue } from '../outcome.js';
import { type Delivery, eventOf } from '../receiver.js';
import { reportBody } from '../fixtures.js';
import { deliveryLine } from './events.js';
import { plainHttpAnswer } from './plain-http.js';
import { specLevelSignature } from './signatures.js';
import type { ProbeSet } from './types.js';

/** Each operation of openapi.yaml with the pattern of its paths and the resource its path names (`/v1/keys/{id}`: key). */
const OPERATIONS = STATED_OPERATIONS.map((operation) => ({
  ...operation,
  pattern: new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  resource: operation.path.split('/')[2]!.replace(/s$/, ''),
}));

type Operation = (typeof OPERATIONS)[number];

const ERROR_CODES: Partial<Record<number, readonly string[]>> = STATED_ERROR_CODES;

function operationOf(exchange: Pick<Exchange, 'method' | 'path'>): Operation | undefined {
  const path = exchange.path.split('?')[0]!;
  return OPERATIONS.find((operation) => operation.method === exchange.method && operation.pattern.test(path));
}

/** The success status the request should get: the one its operation states; of a 200 and a 201 (the applicant's upsert), 200 for an update (a body with an id). */
function expectedSuccess(exchange: Exchange, operation: Operation): number {
  const statuses = Object.keys(operation.successes).map(Number);
  if (statuses.length === 1) return statuses[0]!;
  try {
    return (JSON.parse(exchange.requestBody ?? '{}') as { id?: unknown }).id === undefined ? 201 : 200;
  } catch {
    return 201;
  }
}

/** The schema of a success answer: its status's, else that of the success the request should have had. */
function schemaOf(exchange: Exchange, operation: Operation): SchemaName {
  const successes: Partial<Record<number, SchemaName>> = operation.successes;
  return successes[exchange.status] ?? successes[expectedSuccess(exchange, operation)]!;
}

function problemsOf(schema: SchemaName, value: unknown): string {
  return findProblems(schema, value)
    .slice(0, 4)
    .map((problem) => `${problem.field || '(body)'} ${problem.message}`)
    .join(', ');
}

function successesOf(context: KitContext, resource: string): Array<{ exchange: Exchange; operation: Operation }> {
  return context.client.exchanges.flatMap((exchange) => {
    const operation = operationOf(exchange);
    return operation && operation.resource === resource && isSuccess(exchange.status) ? [{ exchange, operation }] : [];
  });
}

/**
 * After the findings in the bodies the run kept: a check that needs the bodies of `answers` passes
 * nothing while some were dropped (past what the kit keeps of a run's answers); it is inconclusive.
 */
function allBodiesKept(context: KitContext, answers: readonly Exchange[]): void {
  const dropped = answers.filter((exchange) => exchange.bodyDropped).length;
  if (dropped > 0) throw new SetupError(context.client.kept.describeDropped(dropped, answers.length));
}

/** Every success of a resource's operations against its openapi.yaml schema. */
function resourceCheck(resource: string): (context: KitContext) => Promise<string> {
  return async (context) => {
    const findings = new Findings();
    const answers = successesOf(context, resource);
    if (answers.length === 0) throw new CheckSkipped(`no ${resource} was answered during the run`);
    for (const { exchange, operation } of answers) {
      if (exchange.bodyDropped) continue;
      const schema = schemaOf(exchange, operation);
      const problems = problemsOf(schema, exchange.json);
      if (problems) findings.add({ expected: `openapi.yaml's ${schema}`, got: problems, request: requestLine(exchange) });
    }
    findings.done();
    allBodiesKept(
      context,
      answers.map((answer) => answer.exchange),
    );
    return `${answers.length} answers`;
  };
}

function signatureValue(delivery: Delivery): string | undefined {
  const value = delivery.headers['service-signature'];
  return Array.isArray(value) ? value.join(', ') : value;
}

function deliveriesOf(context: KitContext): Delivery[] {
  if (!context.receiver) throw new CheckSkipped('needs --webhook-port');
  if (context.receiver.deliveries.length === 0)
    throw context.receiver.absence({ expected: 'webhook deliveries to the kit during the run', got: 'none', request: "the kit's webhook receiver" });
  return context.receiver.deliveries;
}

export const strictProbes: ProbeSet = {
  probes: {
    'strict.plain-http-answer': async (context) => {
      const answer = await plainHttpAnswer(context, true);
      const request = `GET ${answer.url}`;
      if ('refused' in answer)
        throw new CheckFailure([{ expected: '400 {"error": {"code": "https_required"}}', got: `no answer (${answer.refused})`, request }]);
      let code: unknown;
      try {
        code = (JSON.parse(answer.body) as { error?: { code?: unknown } }).error?.code;
      } catch {
        code = undefined;
      }
      if (answer.status !== 400 || code !== 'https_required')
        throw new CheckFailure([{ expected: '400 {"error": {"code": "https_required"}}', got: shown({ status: answer.status, body: answer.body }), request }]);
    },

    'strict.validation-errors': async (context) => {
      const applicant = await context.setup.applicant();
      const findings = new Findings();
      const notJson = await context.client.send({
        method: 'POST',
        path: '/v1/reports',
        authorization: `Bearer ${context.keys.api}`,
        role: 'api',
        purpose: 'strict.validation-errors',
        headers: { 'content-type': 'application/json' },
        body: '{"applicant_id": ',
      });
      findings.expect(
        notJson.status === 400 && (notJson.json as { error?: { code?: unknown } })?.error?.code === 'invalid_json',
        '400 {"error": {"code": "invalid_json"}}',
        shown(notJson),
        notJson,
      );
      const invalid = await sendWithKey(context, 'POST', '/v1/reports', {
        role: 'api',
        purpose: 'strict.validation-errors',
        json: { ...reportBody(context.fixtures, applicant.id), destination: 'Germany' },
      });
      const error = (invalid.json as { error?: { code?: unknown; param?: unknown } })?.error;
      findings.expect(
        invalid.status === 422 && error?.code === 'invalid_request' && error?.param === 'destination',
        '422 {"error": {"code": "invalid_request", "param": "destination"}}',
        shown(invalid),
        invalid,
      );
      for (const exchange of [notJson, invalid]) {
        const id = (exchange.json as { id?: unknown } | undefined)?.id;
        if (isSuccess(exchange.status) && typeof id === 'string') context.setup.reports.add(id);
      }
      findings.done();
    },
  },

  final: {
    'strict.success-status': async (context) => {
      const findings = new Findings();
      let count = 0;
      for (const exchange of context.client.exchanges) {
        const operation = operationOf(exchange);
        if (!operation || !isSuccess(exchange.status)) continue;
        count++;
        const expected = expectedSuccess(exchange, operation);
        findings.expect(exchange.status === expected, `${expected} (${operation.id})`, String(exchange.status), exchange);
      }
      findings.done();
      return `${count} successes`;
    },
    'strict.report-resource': resourceCheck('report'),
    'strict.applicant-resource': resourceCheck('applicant'),
    'strict.document-resource': resourceCheck('document'),
    'strict.key-resources': resourceCheck('key'),

    'strict.error-bodies': async (context) => {
      const findings = new Findings();
      const errors = context.client.exchanges.filter((exchange) => !isSuccess(exchange.status) && operationOf(exchange));
      for (const exchange of errors) {
        if (exchange.bodyDropped) continue;
        const codes = ERROR_CODES[exchange.status];
        const problems = problemsOf('Error', exchange.json);
        const code = (exchange.json as { error?: { code?: unknown } } | undefined)?.error?.code;
        if (problems) findings.add({ expected: '{"error": {"code", "message"}}', got: `${problems} in ${shown(exchange)}`, request: requestLine(exchange) });
        else if (!codes) findings.add({ expected: 'an error status openapi.yaml gives', got: String(exchange.status), request: requestLine(exchange) });
        else if (!codes.includes(String(code)))
          findings.add({ expected: `a ${exchange.status} code of openapi.yaml (${codes.join(', ')})`, got: shownValue(code), request: requestLine(exchange) });
      }
      if (errors.length === 0) throw new CheckSkipped('no error was answered during the run');
      findings.done();
      allBodiesKept(context, errors);
      return `${errors.length} error answers`;
    },

    'strict.ratelimit-value': async (context) => {
      const findings = new Findings();
      for (const exchange of context.client.exchanges) {
        const value = exchange.headers['x-ratelimit-remaining'];
        findings.expect(
          value !== undefined && /^\d+$/.test(value.trim()),
          'X-RateLimit-Remaining as an integer of 0 or more',
          value === undefined ? 'no header' : JSON.stringify(value),
          exchange,
        );
      }
      findings.done();
    },

    'strict.event-schemas': async (context) => {
      const findings = new Findings();
      for (const delivery of deliveriesOf(context)) {
        const type = eventOf(delivery).type ?? '';
        const schema = EVENT_SCHEMAS[type as keyof typeof EVENT_SCHEMAS];
        if (!schema) {
          findings.add({
            expected: `an event type of openapi.yaml (${Object.keys(EVENT_SCHEMAS).join(', ')})`,
            got: shownValue(type),
            request: deliveryLine(delivery),
          });
          continue;
        }
        const problems = problemsOf(schema, delivery.json);
        if (problems) findings.add({ expected: `openapi.yaml's ${schema}`, got: problems, request: deliveryLine(delivery) });
      }
      findings.done();
    },

    'strict.signature-header': async (context) => {
      const findings = new Findings();
      for (const delivery of deliveriesOf(context)) {
        const value = signatureValue(delivery);
        if (value === undefined || !/^t=\d+(,v1=[0-9a-f]{64})+$/.test(value)) {
          findings.add({
            expected: 'Service-Signature: t=<digits>,v1=<64 lower-case hex digits>',
            got: value ?? 'no Service-Signature header',
            request: deliveryLine(delivery),
          });
        }
      }
      findings.done();
    },

    'strict.signature-valid': async (context) => {
      const secret = context.webhookSecret;
      if (!secret) throw new CheckSkipped('needs --webhook-secret');
      const findings = new Findings();
      for (const delivery of deliveriesOf(context)) {
        const value = signatureValue(delivery) ?? (delivery.headers['x-service-signature'] as string | undefined);
        const check = verifySignature(value, delivery.raw, { secrets: [secret], encodings: ['hex'], now: Math.floor(delivery.at / 1000) });
        if (check.ok) continue;
        // A valid signature in another form is told apart from one that is no HMAC-SHA256 of the secret at all.
        const other = check.reason === 'signature_mismatch' ? specLevelSignature(delivery, secret) : undefined;
        findings.add({
          expected: "HMAC-SHA256 with the webhook secret over '<t>.<raw body>', hex, within 300 s",
          got: other?.ok ? `${describeScheme([other.signedPayload], [other.encoding])}, which level spec takes` : `${check.reason}: ${check.detail}`,
          request: deliveryLine(delivery),
        });
      }
      findings.done();
    },
  },
};
