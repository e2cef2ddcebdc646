import { BaseCommand } from '../../cli/base-command.js';
import { parseRotationStore } from '../../config/rotation-store.js';
import { rotationStoreFlag } from '../../flags/rotation-store.js';
import type { RotationRecord } from '../../keys/journal.js';
import { openRotationJournal } from '../../keys/rotation-store.js';
import { renderRotations } from '../../ui/rotation.js';

/** What `--json` prints. */
export type JsonResult = RotationRecord[];

export default class KeysRotations extends BaseCommand<JsonResult> {
  static override summary = "List key rotations and where each stands: the shared store's, or this machine's";
  static override description =
    "Read from the rotation store every runner shares (--rotation-store, SVC_ROTATION_STORE or the profile's rotation_store), else from the journals in $XDG_STATE_HOME/svc/rotations; an unfinished one continues with `svc keys rotate --resume <rotation-id>`.";
  static override examples = ['<%= config.bin %> keys rotations', '<%= config.bin %> keys rotations --json'];

  static override flags = {
    'rotation-store': rotationStoreFlag,
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(KeysRotations);
    const store = await this.storeSetting({ name: '--rotation-store', value: flags['rotation-store'] }, 'SVC_ROTATION_STORE', 'rotation_store', flags.profile);
    const journal = await openRotationJournal(store && parseRotationStore(store.value, store.source), this.paths.stateDir);
    let records: RotationRecord[];
    try {
      records = await journal.list();
    } finally {
      await journal.close();
    }
    if (records.length === 0) this.note('No rotations.');
    else this.log(renderRotations(records, this.timeView(flags.utc), this.io.stdout));
    return records;
  }
}
