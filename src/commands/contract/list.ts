import { SvcCommand } from '../../cli/base-command.js';
import { CATALOGUE, type Check } from '../../conformance/catalogue.js';
import { renderTable } from '../../ui/table.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints. */
export type JsonResult = Array<Check & { verified_by: Check['verifiedBy'] }>;

export default class ContractList extends SvcCommand<JsonResult> {
  static override summary = 'List the checks of svc contract verify';
  static override description = helpText`
    Each check has a stable id (for --only and CI history), a level (spec: stated by the specification; strict: an
    assumption of openapi.yaml), the part of the specification it comes from, how it is verified (a Pact
    interaction of contracts/ or a probe) and the inputs it needs beyond --base-url and --api-key.
  `;

  static override examples = ['<%= config.bin %> contract list', '<%= config.bin %> contract list --json'];

  public async run(): Promise<JsonResult> {
    await this.parse(ContractList);
    this.log(
      renderTable(
        [
          'id',
          'level',
          { title: 'part', leaveOut: 2 },
          { title: 'verified by', leaveOut: 1 },
          { title: 'needs', leaveOut: 3, freeText: true },
          { title: 'title', freeText: true },
        ],
        CATALOGUE.map((check) => [check.id, check.level, check.spec, check.verifiedBy, check.needs.join(', '), check.title]),
        this.io.stdout,
      ),
    );
    // `verifiedBy` is 0.1.0's name, deprecated until 0.3.0 (src/cli/deprecated-json.ts).
    return CATALOGUE.map((check) => ({ ...check, verified_by: check.verifiedBy }));
  }
}
