/**
 * The words the Pact contracts of `contracts/` and the kit's provider verification share: the
 * example keys that stand for the operator's real keys, and the provider states.
 */

/** Example keys in the contracts; the kit's forwarder puts the real key in their place. A key nobody has stays as it is. */
export const CONTRACT_KEYS = {
  api: 'svc_test_contract_example_api_key',
  admin: 'svc_admin_contract_example_admin_key',
  unknown: 'svc_test_contract_example_unknown_key',
} as const;

/** Provider states: each is set up through the public API only, and answers the ids the interaction needs. */
export const STATES = {
  applicant: 'an applicant exists',
  completedReport: 'a completed report exists',
  deletableReport: 'a report exists that may be deleted',
  deletedReport: 'a report was deleted',
  revocableKey: 'a key exists that may be revoked',
  document: 'a document was uploaded',
  reportCreated: 'a report was created',
  reportCompleted: 'a report has completed',
  documentAnalysed: 'a document was analysed',
} as const;

/** The check an interaction backs: the part of its description before the colon. */
export function checkOfInteraction(description: string): string {
  const colon = description.indexOf(':');
  return colon < 0 ? description : description.slice(0, colon);
}

export const PACT_CONSUMER = 'svc';
export const PACT_PROVIDER = 'visa-report-service';
