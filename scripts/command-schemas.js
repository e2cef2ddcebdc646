// Writes schemas/<command>.json: the JSON Schema of what each command prints with --json, generated
// from the types its class states (`extends ApiCommand<JsonResult>`: the one document it prints, which
// the compiler holds run() to; `<…, JsonLine>`: each line of a command that reports as it goes). A test fails when the types differ from the schemas, so that a
// change to what ops scripts read is made on purpose: review it, then run `npm run snapshot`.
// schemas/released/<version>/ keeps the schemas as each release published them: --release copies the
// current ones there for package.json's version, at a release (docs/json-output.md).
// Usage: node scripts/command-schemas.js [--check | --release]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import { buildGenerator, getProgramFromFiles } from 'typescript-json-schema';

const root = new URL('..', import.meta.url);
const commandsDir = new URL('src/commands/', root);
const outputDir = new URL('schemas/', root);
const scratch = new URL('node_modules/.cache/svc-command-schemas/', root);

/** reports/get.ts → reports-get; sandbox/deliveries/index.ts → sandbox-deliveries. */
function nameOf(file) {
  return file
    .replace(/\.ts$/, '')
    .replace(/\/index$/, '')
    .replaceAll('/', '-');
}

/** The names a type argument refers to: `JsonResult`, or each of a union's (`JsonResult | undefined`). */
function namesIn(type) {
  if (!type) return [];
  if (ts.isUnionTypeNode(type)) return type.types.flatMap(namesIn);
  return ts.isTypeReferenceNode(type) ? [type.typeName.getText()] : [];
}

/** What the command's class states its --json prints: the type arguments of the command base it extends. */
function kindsOf(file) {
  const path = new URL(file, commandsDir);
  const source = ts.createSourceFile(path.pathname, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const command = source.statements.find(
    (statement) => ts.isClassDeclaration(statement) && statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword),
  );
  const [result, line] = command?.heritageClauses?.[0]?.types[0]?.typeArguments ?? [];
  const kinds = [...(namesIn(result).includes('JsonResult') ? ['JsonResult'] : []), ...(namesIn(line).includes('JsonLine') ? ['JsonLine'] : [])];
  if (kinds.length === 0)
    throw new Error(
      `src/commands/${file}: its class states neither JsonResult nor JsonLine (extends ApiCommand<JsonResult>, or <void, JsonLine>): type what its --json prints`,
    );
  return kinds;
}

const commands = readdirSync(commandsDir, { recursive: true })
  .filter((file) => file.endsWith('.ts'))
  .sort()
  .map((file) => ({ file, name: nameOf(file), kinds: kindsOf(file) }));

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
const alias = (command, kind) => `${command.name.replaceAll('-', '_')}__${kind}`;
writeFileSync(
  new URL('types.ts', scratch),
  commands
    .flatMap((command) =>
      command.kinds.map(
        (kind) =>
          `import type { ${kind} as ${alias(command, kind)}_ } from '../../../src/commands/${command.file.replace(/\.ts$/, '.js')}';\nexport type ${alias(command, kind)} = ${alias(command, kind)}_;`,
      ),
    )
    .join('\n'),
);
const tsconfig = ts.getParsedCommandLineOfConfigFile(
  new URL('tsconfig.json', root).pathname,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
);
const program = getProgramFromFiles([new URL('types.ts', scratch).pathname], tsconfig.options, new URL('.', root).pathname);
// The program is checked by `npm run typecheck`; here it only gives the types (it reads the sources outside their package, as CommonJS).
const generator = buildGenerator(program, { required: true, ref: false, ignoreErrors: true, strictNullChecks: true });
if (!generator) throw new Error('the types of the commands do not compile: run `npm run typecheck`');

/**
 * The generated types of openapi.yaml mark enums with a JSDoc `@enum`, which the generator copies as
 * an `enum` keyword without values: dropped, the type beside it stays.
 */
function withoutEmptyEnums(value) {
  if (Array.isArray(value)) return value.map(withoutEmptyEnums);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => key !== 'enum' || Array.isArray(item))
      .map(([key, item]) => [key, withoutEmptyEnums(item)]),
  );
}

const files = new Map(
  commands.map((command) => {
    const schema = {
      title: `svc ${command.file
        .replace(/\.ts$/, '')
        .replace(/\/index$/, '')
        .replaceAll('/', ' ')} --json`,
    };
    for (const kind of command.kinds) schema[kind === 'JsonResult' ? 'result' : 'line'] = withoutEmptyEnums(generator.getSchemaForSymbol(alias(command, kind)));
    return [`${command.name}.json`, `${JSON.stringify(schema, null, 2)}\n`];
  }),
);
rmSync(scratch, { recursive: true, force: true });

/** The generated schemas in schemas/ (not the released ones below it). */
const generated = () => readdirSync(outputDir).filter((name) => name.endsWith('.json'));

if (process.argv.includes('--release')) {
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const released = new URL(`released/${version}/`, outputDir);
  if (existsSync(released)) throw new Error(`schemas/released/${version}/ exists: a release's schemas are never rewritten`);
  mkdirSync(released, { recursive: true });
  for (const name of generated()) cpSync(new URL(name, outputDir), new URL(name, released));
  console.log(`schemas/released/${version}/: the schemas of ${version}, as published`);
} else if (process.argv.includes('--check')) {
  const committed = new Set(generated());
  const changed = [...new Set([...committed, ...files.keys()])].filter(
    (name) => !files.has(name) || !committed.has(name) || readFileSync(new URL(name, outputDir), 'utf8') !== files.get(name),
  );
  if (changed.length > 0) {
    console.error(`schemas/ differs from what the commands print with --json: ${changed.join(', ')}; review the change, then run \`npm run snapshot\``);
    process.exit(1);
  }
} else {
  mkdirSync(outputDir, { recursive: true });
  for (const name of generated()) rmSync(new URL(name, outputDir));
  for (const [name, text] of files) writeFileSync(new URL(name, outputDir), text);
}
