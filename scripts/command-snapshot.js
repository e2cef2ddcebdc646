// Writes command-snapshot.json: every command's arguments and flags as scripts depend on them (names,
// kinds, short forms, defaults, choices, environment variables), taken from the built oclif manifest.
// A test fails when the commands differ from it, so that a change to what scripts call is made on
// purpose: review it, then run `npm run snapshot`.
// Usage: node scripts/command-snapshot.js [--check]
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const FLAG_FIELDS = ['type', 'char', 'multiple', 'required', 'allowNo', 'options', 'default', 'env', 'exclusive', 'dependsOn', 'relationships'];
const ARG_FIELDS = ['required', 'options', 'default'];

function pick(object, fields) {
  return Object.fromEntries(fields.filter((field) => object[field] !== undefined && object[field] !== false).map((field) => [field, object[field]]));
}

function sorted(object, shape) {
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, shape(object[key])]),
  );
}

const manifest = JSON.parse(readFileSync(new URL('oclif.manifest.json', root), 'utf8'));
const snapshot = sorted(manifest.commands, (command) => ({
  args: Object.values(command.args ?? {}).map((arg) => ({ name: arg.name, ...pick(arg, ARG_FIELDS) })),
  flags: sorted(command.flags ?? {}, (flag) => pick(flag, FLAG_FIELDS)),
}));
const text = `${JSON.stringify(snapshot, null, 2)}\n`;
const file = new URL('command-snapshot.json', root);

if (process.argv.includes('--check')) {
  const committed = JSON.parse(readFileSync(file, 'utf8'));
  const changed = [...new Set([...Object.keys(committed), ...Object.keys(snapshot)])].filter(
    (id) => JSON.stringify(committed[id]) !== JSON.stringify(snapshot[id]),
  );
  if (changed.length > 0) {
    console.error(`command-snapshot.json differs from the commands as built: ${changed.join(', ')}; review the change, then run \`npm run snapshot\``);
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
}
