import { Flags } from '@oclif/core';
import { secretHelp } from './secret.js';

export const rotationStoreFlag = Flags.string({
  description: secretHelp(
    "postgres:// connection string of the database every runner shares for rotations: their journals and a lock per key (default: SVC_ROTATION_STORE, then the profile's rotation_store, then $XDG_STATE_HOME/svc/rotations on this machine)",
    'SVC_ROTATION_STORE or the profile',
  ),
});
