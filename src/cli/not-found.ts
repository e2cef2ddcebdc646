// oclif's command_not_found hook, in place of @oclif/plugin-not-found: that one names the closest
// command only at a terminal, as a question, and otherwise says only that the words are no command.
import type { Hook } from '@oclif/core';
import { distance } from 'fastest-levenshtein';
import { SvcError } from '../core/errors.js';
import { processIo } from '../ui/io.js';
import { inquirerPrompter } from '../ui/prompter.js';

/**
 * The commands and topics closest to the words typed: of those with as many words as were typed
 * (or fewer, when none is near), the ones at the least distance, within a third of the words' length.
 */
export function closestCommands(typed: readonly string[], names: readonly string[]): string[] {
  for (let words = Math.min(typed.length, 3); words > 0; words--) {
    const wanted = typed.slice(0, words).join(' ');
    const scored = names.filter((name) => name.split(' ').length === words).map((name) => ({ name, distance: distance(wanted, name) }));
    const least = Math.min(...scored.map((score) => score.distance));
    if (least <= Math.max(2, Math.floor(wanted.length / 3))) {
      return scored
        .filter((score) => score.distance === least)
        .map((score) => score.name)
        .slice(0, 3);
    }
  }
  return [];
}

const hook: Hook.CommandNotFound = async function (options) {
  const { config } = options;
  const separator = config.topicSeparator;
  const typed = [...options.id.split(':'), ...(options.argv ?? []).filter((arg) => /^[a-z][a-z0-9-]*$/.test(arg))];
  const visible = config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]);
  const names = [...new Set([...visible, ...config.topics.map((topic) => topic.name)])].map((id) => id.replaceAll(':', separator));
  const closest = closestCommands(typed, names);
  const shown = JSON.stringify(options.id.replaceAll(':', separator));
  const suggestions = closest.map((name) => `\`${config.bin} ${name}\``).join(', ');
  const io = processIo();
  if (
    closest.length === 1 &&
    io.canPrompt &&
    (await inquirerPrompter(io).confirm(`${shown} is not a ${config.bin} command. Did you mean ${suggestions}?`, false))
  ) {
    const id = closest[0]!.replaceAll(separator, ':');
    const rest = [...options.id.split(':'), ...(options.argv ?? [])].slice(closest[0]!.split(' ').length);
    return config.findCommand(id) ? config.runCommand(id, rest) : config.runCommand('help', [...id.split(':')]);
  }
  throw new SvcError(
    'usage',
    'unknown_command',
    `${shown} is not a ${config.bin} command`,
    closest.length > 0 ? `did you mean ${suggestions}? \`${config.bin} help\` lists every command` : `\`${config.bin} help\` lists every command`,
  );
};

export default hook;
