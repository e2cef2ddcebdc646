/**
 * The layers of src/ and which way imports go (see ARCHITECTURE.md):
 * commands → ui and the engines → services → api → core. `npm test` fails on a breach.
 */
const ENGINES = '^src/(keys|conformance|sandbox|webhooks)/';
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'commands-are-leaves',
      comment: 'Only oclif loads a command, by its path.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/commands/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'engines-not-ui',
      comment: 'Engines emit events and return data; commands render them.',
      severity: 'error',
      from: { path: `${ENGINES}|^src/(services|api|config)/` },
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
      from: { path: '^src/(services|api)/' },
      to: { path: `${ENGINES}|^src/(flags)/|^src/[^/]+-command\\.ts$` },
    },
    { name: 'api-below-services', severity: 'error', from: { path: '^src/api/' }, to: { path: '^src/(services|config)/' } },
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
