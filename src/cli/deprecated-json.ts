/**
 * The fields of `--json` that a release published and a later change renamed: each is still printed
 * beside the field that replaces it until `removal`, and a run with --json warns of it on stderr
 * (docs/json-output.md). test/json-compatibility.test.ts holds this list to the published schemas
 * (schemas/released/), the current ones (schemas/) and the CHANGELOG.
 */
export interface DeprecatedField {
  /** The command as typed: `webhooks listen`. */
  command: string;
  /** The field, at the top of each item or line, dotted below it (`attempt_log.deliveryId`). */
  field: string;
  /** The kind of line or item it is deprecated in, named by the value of its `kind`, when not in every one. */
  of?: string;
  /** The fields to read instead. */
  use: string[];
  /** The first version without it. */
  removal: string;
}

export const DEPRECATED_JSON: readonly DeprecatedField[] = [
  // 0.1.0's names, renamed in the same version; the named field of a takeover line cannot be both until 0.3.0.
  { command: 'webhooks listen', field: 'kind', use: ['event'], removal: '0.3.0' },
  { command: 'webhooks listen', field: 'event', of: 'takeover', use: ['event_id', 'type', 'resource_id'], removal: '0.3.0' },
  ...(['sandbox deliveries', 'sandbox deliveries replay'] as const).flatMap((command) =>
    (
      [
        ['eventId', 'event_id'],
        ['eventType', 'event_type'],
        ['nextAttemptAt', 'next_attempt_at'],
        ['lastStatus', 'last_status'],
        ['lastError', 'last_error'],
        ['createdAt', 'created_at'],
        ['updatedAt', 'updated_at'],
      ] as const
    ).map(([field, use]) => ({ command, field, use: [use], removal: '0.3.0' })),
  ),
  { command: 'sandbox deliveries', field: 'attempt_log.deliveryId', use: ['id'], removal: '0.3.0' },
  { command: 'sandbox deliveries', field: 'attempt_log.durationMs', use: ['attempt_log.duration_ms'], removal: '0.3.0' },
  { command: 'contract list', field: 'verifiedBy', use: ['verified_by'], removal: '0.3.0' },
];

/** The warning a run of `command` with --json gives, when its output has deprecated fields. */
export function deprecationWarning(command: string): string | undefined {
  const fields = DEPRECATED_JSON.filter((entry) => entry.command === command);
  if (fields.length === 0) return undefined;
  const named = fields.map(
    (entry) => `\`${entry.field}\`${entry.of ? ` of a ${entry.of} line` : ''} (read ${entry.use.map((name) => `\`${name}\``).join(', ')})`,
  );
  const removals = [...new Set(fields.map((entry) => entry.removal))].join(', ');
  return `${command} --json: ${named.join(', ')} ${fields.length === 1 ? 'is' : 'are'} deprecated and ${fields.length === 1 ? 'goes' : 'go'} in ${removals} (docs/json-output.md)`;
}
