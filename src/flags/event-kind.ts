import { Args, Flags } from '@oclif/core';
import { SvcError } from '../core/errors.js';
import { EVENT_TYPES, isListedEventType } from '../webhooks/envelope.js';

/** For help texts: part 6's list of kinds is not definitive, so any other is taken too. */
export const LISTED_KINDS = `openapi.yaml lists ${EVENT_TYPES.join(', ')}; any other kind is taken too`;

/** An event kind to send; it goes into the Service-Event header, so visible ASCII only. */
function kindToSend(input: string): string {
  if (/^[\x21-\x7e]+$/.test(input)) return input;
  throw new SvcError(
    'usage',
    'invalid_event_kind',
    `${JSON.stringify(input)} cannot be sent as an event kind: it goes into the Service-Event header`,
    'give visible ASCII characters without spaces, such as report.archived',
  );
}

/** An event kind to look for among those received: any but an empty one. */
function kindReceived(input: string): string {
  if (input.trim() !== '') return input;
  throw new SvcError('usage', 'invalid_event_kind', 'an empty event kind', 'give kinds separated by commas, as report.completed,report.failed');
}

export const kindToSendFlag = Flags.custom<string>({ parse: async (input) => kindToSend(input) });
export const kindToSendArg = Args.custom<string>({ parse: async (input) => kindToSend(input) });
export const kindReceivedFlag = Flags.custom<string>({ parse: async (input) => kindReceived(input) });

/** A line for each kind openapi.yaml does not list: allowed, but perhaps a misspelling. */
export function unlistedKindNotes(kinds: readonly string[], consequence: string): string[] {
  return kinds.filter((kind) => !isListedEventType(kind)).map((kind) => `${kind} is not a kind openapi.yaml lists: ${consequence}`);
}
