/**
 * The layers of src/ and which way imports go (see ARCHITECTURE.md):
 * commands → cli, ui and the engines → services → api, config, spec → core. `npm test` fails on a breach.
 */
const ENGINES = '^src/(keys|conformance|sandbox|webhooks)/';
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'every-file-in-a-room',
      comment: 'A file at the root of src/ belongs to no layer: give it the folder of its layer.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+$' },
    },
    {
      name: 'no-file-at-the-root',
      comment: 'A file at the root of src/ belongs to no layer: give it the folder of its layer.',
      severity: 'error',
      from: { path: '^src/[^/]+$' },
      to: { path: '^src/' },
    },
    {
      name: 'commands-are-leaves',
      comment: 'Only oclif loads a command, by its path.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/commands/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'ci-is-a-leaf',
      comment: "The GitHub Action's script is started by path (action.yml), as oclif loads a command.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/ci/' },
      to: { path: '^src/ci/' },
    },
    {
      name: 'cli-for-commands',
      comment: 'cli/ holds what commands share (their base classes, error output, the entry point): only commands build on it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands|cli)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'demo-for-commands',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(commands|demo)/' },
      to: { path: '^src/demo/' },
    },
    {
      name: 'engines-not-ui',
      comment: 'Engines emit events and return data; commands render them.',
      severity: 'error',
      from: { path: `${ENGINES}|^src/(services|api|config|spec|core|documents)/` },
      to: { path: '^src/ui/' },
    },
    {
      name: 'ui-makes-no-request',
      comment: 'ui/ renders what commands give it; it may read the types and pure helpers of an engine, never call the API.',
      severity: 'error',
      from: { path: '^src/ui/' },
      to: { path: '^src/services/|^src/api/(client|transport|retry)\\.ts$' },
    },
    {
      name: 'services-below-engines',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: `${ENGINES}|^src/(flags|cli)/` },
    },
    {
      name: 'api-on-core',
      comment: 'The client knows HTTP and the answers, no profile, no service, no rule of the specification.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|core)/' },
    },
    {
      name: 'spec-reads-only-types',
      comment: "spec/ states the specification's rules: it may read the generated types, nothing else above core.",
      severity: 'error',
      from: { path: '^src/spec/' },
      to: { path: '^src/', pathNot: '^src/(spec|core)/|^src/api/(types\\.ts|schema\\.d\\.ts|schemas\\.json)$' },
    },
    {
      name: 'config-below-services',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: `${ENGINES}|^src/(services|flags|cli|spec)/` },
    },
    {
      name: 'core-is-the-floor',
      comment: 'core/ holds what every layer uses (errors, redaction, ids, time, files that hold secrets): it imports nothing above it.',
      severity: 'error',
      from: { path: '^src/(core|documents)/' },
      to: { path: '^src/', pathNot: '^src/(core|documents)/' },
    },
    {
      name: 'sandbox-webhooks-one-way',
      comment: 'The sandbox may use webhooks/ (signing, the sender); webhooks/ never uses the sandbox.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/sandbox/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
