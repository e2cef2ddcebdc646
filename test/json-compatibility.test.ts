/**
 * What a script reading `--json` may count on (docs/json-output.md): no field of a published schema
 * (schemas/released/<the last release>/) disappears, moves or changes its type, unless it is
 * deprecated (src/cli/deprecated-json.ts): still printed beside what replaces it until its removal,
 * warned of on stderr, and in the CHANGELOG. The released schemas are committed, so that this holds on
 * a clean, shallow clone, with no history to read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEPRECATED_JSON, type DeprecatedField, deprecationWarning } from '../src/cli/deprecated-json.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** -1, 0 or 1 as semver orders `a` and `b` (releases only: major.minor.patch). */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((text) => text.split('.').map(Number));
  for (let index = 0; index < 3; index++) if (x![index] !== y![index]) return Math.sign(x![index]! - y![index]!);
  return 0;
}

const releasedDir = join(root, 'schemas', 'released');
const lastRelease = readdirSync(releasedDir)
  .filter((name) => /^\d+\.\d+\.\d+$/.test(name))
  .sort(compareVersions)
  .at(-1)!;

type Schema = Record<string, unknown>;

/**
 * One field of a schema: where it is (the part, `[]` for an array's items, `{kind=takeover}` for the
 * alternative of a union that a constant names), and the JSON types it takes.
 */
interface Field {
  path: string[];
  types: Set<string>;
}

const isLabel = (segment: string) => segment.startsWith('{');

/** The constants an alternative of a union holds, `{event=delivery,kind=delivery}`: what a script tells it by. */
function labelOf(alternative: Schema): string | undefined {
  const properties = (alternative.properties ?? {}) as Record<string, Schema>;
  const constants = Object.entries(properties)
    .filter(([, property]) => property.const !== undefined)
    .map(([name, property]) => `${name}=${String(property.const)}`)
    .sort();
  return constants.length > 0 ? `{${constants.join(',')}}` : undefined;
}

function typesOf(schema: Schema): string[] {
  const types: string[] = [];
  if (typeof schema.type === 'string') types.push(schema.type);
  if (Array.isArray(schema.type)) types.push(...(schema.type as string[]));
  if (schema.const !== undefined) types.push(schema.const === null ? 'null' : typeof schema.const);
  if (Array.isArray(schema.enum)) types.push(...schema.enum.map((value) => (value === null ? 'null' : typeof value)));
  if (schema.properties && types.length === 0) types.push('object');
  if (schema.items && types.length === 0) types.push('array');
  return types.map((type) => (type === 'integer' ? 'number' : type));
}

/** Every field of a schema, with the types it takes (those of a union's unlabelled alternatives joined). */
function fieldsOf(schema: Schema, path: string[], fields = new Map<string, Field>()): Map<string, Field> {
  const key = path.join('.');
  const field = fields.get(key) ?? { path, types: new Set<string>() };
  fields.set(key, field);
  for (const type of typesOf(schema)) field.types.add(type);
  for (const alternative of [...((schema.anyOf ?? schema.oneOf ?? []) as Schema[])]) {
    const label = labelOf(alternative);
    fieldsOf(alternative, label ? [...path, label] : path, fields);
  }
  for (const part of (schema.allOf ?? []) as Schema[]) fieldsOf(part, path, fields);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) fieldsOf(property, [...path, name], fields);
  if (schema.items) fieldsOf(schema.items as Schema, [...path, '[]'], fields);
  return fields;
}

/** Whether a field of the current schema is at the place of a published one: the same names, and alternatives holding at least its constants. */
function samePlace(published: string[], current: string[]): boolean {
  if (published.length !== current.length) return false;
  return published.every((segment, index) => {
    const other = current[index]!;
    if (!isLabel(segment)) return segment === other;
    if (!isLabel(other)) return false;
    const has = new Set(other.slice(1, -1).split(','));
    return segment
      .slice(1, -1)
      .split(',')
      .every((constant) => has.has(constant));
  });
}

/** The field of a path as a script names it below its item or line: `attempt_log.deliveryId`. */
const fieldName = (path: string[]) =>
  path
    .slice(1)
    .filter((segment) => segment !== '[]' && !isLabel(segment))
    .join('.');

function deprecationOf(command: string, path: string[]): DeprecatedField | undefined {
  const name = fieldName(path);
  const label = path.find(isLabel);
  return DEPRECATED_JSON.find(
    (entry) =>
      entry.command === command &&
      (name === entry.field || name.startsWith(`${entry.field}.`)) &&
      (entry.of === undefined || (label !== undefined && label.slice(1, -1).split(',').includes(`kind=${entry.of}`))),
  );
}

const commandOf = (file: string) => file.replace(/\.json$/, '').replaceAll('-', ' ');
const schemaOf = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<'result' | 'line', Schema | undefined>;

/**
 * What a published schema's fields became in the current one: each missing (not at its place) or
 * taking none of the types it took, unless deprecated and past its removal.
 */
function breaks(published: Record<string, Schema | undefined>, current: Record<string, Schema | undefined>, command: string, at: string): string[] {
  const found: string[] = [];
  for (const part of ['result', 'line'] as const) {
    if (!published[part]) continue;
    const now = [...fieldsOf(current[part] ?? {}, [part]).values()];
    for (const field of fieldsOf(published[part], [part]).values()) {
      if (isLabel(field.path.at(-1)!)) continue;
      const deprecation = deprecationOf(command, field.path);
      if (deprecation && compareVersions(at, deprecation.removal) >= 0) continue;
      const matches = now.filter((candidate) => samePlace(field.path, candidate.path));
      const where = field.path.join('.').replaceAll('.[]', '[]');
      if (matches.length === 0) found.push(`${command}: ${where} is gone`);
      else if (field.types.size > 0 && !matches.some((match) => [...match.types].some((type) => field.types.has(type))))
        found.push(`${command}: ${where} was ${[...field.types].join('|')}, is ${[...new Set(matches.flatMap((match) => [...match.types]))].join('|')}`);
    }
  }
  return found;
}

describe(`--json keeps the word of the last release (${lastRelease})`, () => {
  const publishedDir = join(releasedDir, lastRelease);
  const currentDir = join(root, 'schemas');

  it('every field of every published schema is still printed, at its place and of its type, unless deprecated and past its removal', () => {
    const files = readdirSync(publishedDir).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(30);
    const found = files.flatMap((file) => {
      const current = readdirSync(currentDir).includes(file) ? schemaOf(currentDir, file) : {};
      return breaks(schemaOf(publishedDir, file), current, commandOf(file), version);
    });
    expect(found, 'restore each field beside what replaces it and deprecate it (docs/json-output.md)').toEqual([]);
  });

  it('tells a renamed field from one kept, and a changed type from a new alternative (the check itself)', () => {
    const line = (kind: string, extra: Schema = {}) => ({
      type: 'object',
      properties: { kind: { type: 'string', const: kind }, event_id: { type: ['null', 'string'] }, ...extra },
    });
    const published = { line: { anyOf: [line('delivery'), line('takeover', { event: { type: 'object', properties: { id: { type: 'string' } } } })] } };
    expect(breaks(published, published, 'a command', version)).toEqual([]);
    const renamed = {
      line: {
        anyOf: [
          { type: 'object', properties: { event: { type: 'string', const: 'delivery' }, event_id: { type: 'string' } } },
          { type: 'object', properties: { event: { type: 'string', const: 'takeover' }, event_id: { type: 'string' } } },
        ],
      },
    };
    expect(breaks(published, renamed, 'a command', version)).toEqual([
      'a command: line.{kind=delivery}.kind is gone',
      'a command: line.{kind=delivery}.event_id is gone',
      'a command: line.{kind=takeover}.kind is gone',
      'a command: line.{kind=takeover}.event_id is gone',
      'a command: line.{kind=takeover}.event is gone',
      'a command: line.{kind=takeover}.event.id is gone',
    ]);
    const retyped = { line: { anyOf: [line('delivery'), line('takeover', { event: { type: 'string' } }), line('refused')] } };
    expect(breaks(published, retyped, 'a command', version)).toEqual([
      'a command: line.{kind=takeover}.event was object, is string',
      'a command: line.{kind=takeover}.event.id is gone',
    ]);
  });

  it.each(DEPRECATED_JSON.map((entry) => [`${entry.command}: ${entry.field}${entry.of ? ` of ${entry.of}` : ''}`, entry] as const))(
    'the deprecated %s is printed beside what replaces it until its removal, warned of and in the CHANGELOG',
    (_, entry) => {
      const file = `${entry.command.replaceAll(' ', '-')}.json`;
      const current = schemaOf(currentDir, file);
      const names = (['result', 'line'] as const).flatMap((part) => [...fieldsOf(current[part] ?? {}, [part]).values()].map((field) => fieldName(field.path)));
      expect(compareVersions(version, entry.removal), `${entry.field} was to go in ${entry.removal}: remove it and its entry`).toBeLessThan(0);
      expect(names).toContain(entry.field);
      for (const name of entry.use) expect(names).toContain(name);
      expect(deprecationWarning(entry.command)).toContain(`\`${entry.field}\``);
      const deprecated = readFileSync(join(root, 'CHANGELOG.md'), 'utf8')
        .split(/^### /m)
        .filter((section) => section.startsWith('Deprecated'))
        .join('\n');
      expect(deprecated, 'CHANGELOG.md, under "### Deprecated"').toContain(`\`${entry.field.split('.').at(-1)}\``);
      expect(deprecated).toContain(`\`${entry.command}`);
    },
  );
});
