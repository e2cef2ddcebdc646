/**
 * The contracts of contracts/ against openapi.yaml, with PactFlow's comparator: every HTTP
 * interaction against the paths, every webhook message against the webhook's event schema.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as comparatorModule from '@pactflow/openapi-pact-comparator';
import { expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
// The package's type declarations are not reachable under NodeNext resolution (its "types" condition comes last).
interface AsyncAPIDocument {
  asyncapi: string;
  info: { title: string; version: string };
  channels?: Record<string, { messages?: Record<string, { $ref: string }> }>;
  operations?: Record<string, { action: 'send' | 'receive'; channel: { $ref: string }; messages?: Array<{ $ref: string }> }>;
  components?: { messages?: Record<string, object>; schemas?: Record<string, object> };
}
interface ComparatorResult {
  type: string;
  code: string;
  message: string;
  mockDetails?: { interactionDescription: string };
}
const { Comparator } = comparatorModule as unknown as { Comparator: new (options: { oas: object; asyncapi: AsyncAPIDocument }) => { compare(pact: object): AsyncIterable<ComparatorResult> } };

const oas = parse(readFileSync(new URL('openapi.yaml', root), 'utf8'));

type Schema = Record<string, unknown>;

function deref(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return deref(oas.components.schemas[ref.replace('#/components/schemas/', '')] as Schema);
}

/**
 * An event schema in the form the comparator can check a message against: its allOf merged into
 * one object (the comparator closes each allOf branch to the others' properties) and oneOf read as
 * anyOf (an example with the fields two variants share fits both).
 */
function comparable(schema: Schema): Schema {
  const resolved = deref(schema);
  if (Array.isArray(resolved.allOf)) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of (resolved.allOf as Schema[]).map(comparable)) {
      Object.assign(merged.properties as Schema, part.properties ?? {});
      merged.required = [...new Set([...(merged.required as string[]), ...((part.required as string[]) ?? [])])];
    }
    return merged;
  }
  const copy: Schema = { ...resolved };
  if (Array.isArray(copy.oneOf)) {
    copy.anyOf = (copy.oneOf as Schema[]).map(comparable);
    delete copy.oneOf;
  }
  if (copy.properties) copy.properties = Object.fromEntries(Object.entries(copy.properties as Record<string, Schema>).map(([name, property]) => [name, comparable(property)]));
  return copy;
}

/** openapi.yaml's webhooks as an AsyncAPI 3 document: one `send` operation per webhook, under its operationId, with the event schema as payload. */
function webhooksAsAsyncApi(): AsyncAPIDocument {
  const operations: NonNullable<AsyncAPIDocument['operations']> = {};
  const channels: NonNullable<AsyncAPIDocument['channels']> = {};
  const messages: Record<string, { payload: object; contentType: string }> = {};
  for (const [name, item] of Object.entries(oas.webhooks as Record<string, { post: { operationId: string; requestBody: { content: Record<string, { schema: object }> } } }>)) {
    const { operationId, requestBody } = item.post;
    messages[operationId] = { payload: comparable(requestBody.content['application/json']!.schema as Schema), contentType: 'application/json' };
    channels[operationId] = { messages: { [name]: { $ref: `#/components/messages/${operationId}` } } };
    operations[operationId] = { action: 'send', channel: { $ref: `#/channels/${operationId}` }, messages: [{ $ref: `#/channels/${operationId}/messages/${name}` }] };
  }
  return { asyncapi: '3.0.0', info: { title: oas.info.title, version: oas.info.version }, channels, operations, components: { messages, schemas: oas.components.schemas } };
}

it('every interaction of contracts/ agrees with openapi.yaml', async () => {
  const comparator = new Comparator({ oas, asyncapi: webhooksAsAsyncApi() });
  const files = readdirSync(fileURLToPath(new URL('contracts/', root))).filter((name) => name.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  const problems: string[] = [];
  let interactions = 0;
  for (const name of files) {
    const pact = JSON.parse(readFileSync(new URL(`contracts/${name}`, root), 'utf8'));
    interactions += pact.interactions.length;
    for await (const result of comparator.compare(pact)) {
      if (result.type === "error") problems.push(`${name}: ${result.mockDetails?.interactionDescription}: ${result.code} ${result.message}${(result as { causes?: Array<{ message: string }> }).causes?.map((cause) => ` [${cause.message}]`).join("") ?? ""}`);
    }
  }
  expect(interactions).toBeGreaterThan(10);
  expect(problems).toEqual([]);
});

it('the comparator sees what breaks openapi.yaml, in a request, a response and an event', async () => {
  const comparator = new Comparator({ oas, asyncapi: webhooksAsAsyncApi() });
  const pact = JSON.parse(readFileSync(new URL('contracts/svc-visa-report-service.json', root), 'utf8'));
  const byCheck = (prefix: string) => pact.interactions.find((interaction: { description: string }) => interaction.description.startsWith(prefix));
  byCheck('reports.create:').response.body.content.destination = 'germany';
  byCheck('strict.applicants-update:').request.body.content.shoe_size = 42;
  byCheck('events.report-completed:').contents.content.data.risk_score = 'high';
  const codes: string[] = [];
  for await (const result of comparator.compare(pact)) if (result.type === 'error') codes.push(`${result.mockDetails?.interactionDescription.split(':')[0]} ${result.code}`);
  expect(codes).toEqual(expect.arrayContaining(['reports.create response.body.incompatible', 'strict.applicants-update request.body.incompatible']));
  expect(codes.some((code) => code.startsWith('events.report-completed'))).toBe(true);
});
