// The entry bin/run.js loads: oclif, bundled with the commands so that both share one @oclif/core.
// Its index is loaded here, while bin/run.js holds oclif's engine check off, rather than by the
// first command module, after it.
export { execute } from '@oclif/core';
