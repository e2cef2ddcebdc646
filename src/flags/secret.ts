import { Flags } from '@oclif/core';

/** What is wrong with a secret in argv, and what to use instead: the words of every secret-bearing flag and of its warning. */
function inProcessList(instead: string): string {
  return `visible to other local users in the process list; prefer ${instead}`;
}

/** The help of a flag that carries a key or a secret. */
export function secretHelp(description: string, instead: string): string {
  return `${description}; ${inProcessList(instead)}`;
}

/** A flag that carries a key or a secret; with `env`, oclif reads it from that variable when it is not given. */
export function secretFlag(options: { description: string; instead: string; env?: string; helpGroup: string }) {
  return Flags.string({ description: secretHelp(options.description, options.instead), env: options.env, helpGroup: options.helpGroup });
}

/** The warning for a secret that was given on the command line (`given`: how it was given). */
export function secretOnCommandLine(given: string, instead: string): string {
  return `${given} is ${inProcessList(instead)}`;
}
