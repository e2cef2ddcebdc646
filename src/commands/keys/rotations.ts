import { BaseCommand } from '../../cli/base-command.js';
import { RotationJournal, type RotationRecord } from '../../keys/journal.js';
import { renderRotations } from '../../ui/rotation.js';

/** What `--json` prints. */
export type JsonResult = RotationRecord[];

export default class KeysRotations extends BaseCommand<JsonResult> {
  static override summary = 'List the key rotations started from this machine and where each stands';
  static override description =
    'Read from the rotation journals in $XDG_STATE_HOME/svc/rotations; an unfinished one continues with `svc keys rotate --resume <rotation-id>`.';
  static override examples = ['<%= config.bin %> keys rotations', '<%= config.bin %> keys rotations --json'];

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(KeysRotations);
    const records = await RotationJournal.under(this.paths.stateDir).list();
    if (records.length === 0) this.note('No rotations.');
    else this.log(renderRotations(records, this.timeView(flags.utc), this.io.stdout));
    return records;
  }
}
