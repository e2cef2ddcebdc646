// The entry bin/run.js loads: oclif's own entry, bundled with the commands so that both share one @oclif/core.
export { execute } from '@oclif/core/execute';
