import { credentialProbes } from '../generated/credentials.js';
import { inputProbes } from '../generated/inputs.js';
import { robustnessProbes } from '../generated/robustness.js';
import { sequenceProbes } from '../generated/sequences.js';
import type { ProbeSet } from './types.js';

/** The generated checks: they run once the others are done, with what the run's rate-limit window leaves them (see run.ts). */
export const generatedProbes: ProbeSet = {
  probes: { ...inputProbes, ...credentialProbes, ...sequenceProbes, ...robustnessProbes.probes },
  final: robustnessProbes.final,
};
