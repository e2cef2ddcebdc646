import { Flags } from '@oclif/core';
import { UPLOAD_ENCODINGS, UPLOAD_PLACEHOLDERS } from '../api/upload-shape.js';

const GROUP = 'UPLOAD SHAPE';
const PLACEHOLDERS = UPLOAD_PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ');

/** The shape of `documents upload` (config/upload-settings.ts): each flag overrides the profile's `upload_…` setting. */
export const uploadShapeFlags = {
  encoding: Flags.string({
    description:
      'multipart (a form), json (the file as base64 in a JSON body) or raw (the file as the body) (default: upload_encoding of the profile, else multipart)',
    options: [...UPLOAD_ENCODINGS],
    helpGroup: GROUP,
  }),
  'file-field': Flags.string({
    description: 'Name of the file part (multipart) or of the base64 field (json) (default: upload_file_field, else file)',
    helpGroup: GROUP,
  }),
  'type-field': Flags.string({ description: 'Name of the field of --type (default: upload_type_field, else type)', helpGroup: GROUP }),
  'applicant-field': Flags.string({ description: 'Name of the field of --applicant (default: upload_applicant_field, else applicant_id)', helpGroup: GROUP }),
  field: Flags.string({
    description: `Another field to send, name=value (repeatable; added to upload_fields of the profile); the value may hold ${PLACEHOLDERS}`,
    multiple: true,
    helpGroup: GROUP,
  }),
  query: Flags.string({
    description: `A query parameter to send, name=value (repeatable; added to upload_query of the profile); the value may hold ${PLACEHOLDERS}`,
    multiple: true,
    helpGroup: GROUP,
  }),
  header: Flags.string({
    description: `A header to send, name=value (repeatable; added to upload_headers of the profile); the value may hold ${PLACEHOLDERS}`,
    multiple: true,
    helpGroup: GROUP,
  }),
};
