// The entry bin/run.js loads: oclif, bundled with the commands so that both share one @oclif/core.
// Its index is loaded here, while bin/run.js holds oclif's engine check off, rather than by the
// first command module, after it.
import { settings } from '@oclif/core';

// svc runs its built commands only: oclif would otherwise look for their TypeScript sources whenever
// NODE_ENV is test or development and a TypeScript runner happens to be installed.
settings.enableAutoTranspile = false;

export { execute } from '@oclif/core';
