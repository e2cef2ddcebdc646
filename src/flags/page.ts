import { Flags } from '@oclif/core';

/** Where `reports get --web` and `reports open` write their page. */
export function pageOutputFlag(dependsOn?: string[]) {
  return Flags.string({ description: 'Write the HTML page to this file instead of a new private temporary directory', dependsOn });
}
