import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { DOCUMENT_TYPES } from '../../spec/enums.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { DocumentAnswer } from '../../api/types.js';
import { holdsPlaceholder } from '../../api/upload-shape.js';
import { resolveUploadShape } from '../../config/upload-settings.js';
import { SvcError } from '../../core/errors.js';
import { uploadShapeFlags } from '../../flags/upload-shape.js';
import { isReadableFile, readDocumentFile, uploadDocument, uploadNotes } from '../../services/documents.js';
import { chooseOrType, leftOutWarning } from '../../ui/ask.js';
import { renderDocument } from '../../ui/documents.js';
import { uploadProgress } from '../../ui/progress.js';
import { chooseApplicant } from '../../cli/applicant-choice.js';

/** What `--json` prints. */
export type JsonResult = DocumentAnswer;

export default class DocumentsUpload extends ApiCommand<JsonResult> {
  static override summary = "Upload a supporting document: a multipart form, or the service's own shape";
  static override description = `The file is sent with the media type its content shows (PDF, JPEG, PNG, UTF-8 text; application/octet-stream otherwise), never guessed from its name. Its size and format are the service's to judge (the specification shows no limit): a warning says what the sandbox would refuse. The document is then analysed asynchronously: \`svc documents get <id>\` shows the outcome.
The file, --type and --applicant are asked for on a terminal when left out (the applicant picked as \`reports create\` picks it); anywhere else a missing file is an error, and a missing type is left out of the form, with a warning.
The encoding of an upload is not shown by the specification: the sandbox takes a multipart form of type, applicant_id and the file part "file". For a service that takes another shape, the UPLOAD SHAPE flags choose the encoding and the names of the fields, and add fields, query parameters and headers of its own; saved once in the profile (\`svc config set upload_file_field upload\`, …), they apply to every upload, and a flag overrides its setting. A raw upload sends the file as the body: --type and --applicant go where a --query or --header holds {{type}} or {{applicant_id}}.`;

  static override examples = [
    {
      description: 'Upload a passport for an applicant',
      command: '<%= config.bin %> documents upload passport.pdf --type passport --applicant app_123',
    },
    '<%= config.bin %> documents upload statement.png --type bank_statement --json',
    {
      description: 'Upload to a service whose form names the file "upload" and the kind "kind"',
      command: '<%= config.bin %> documents upload passport.pdf --type passport --file-field upload --type-field kind',
    },
    {
      description: 'Upload as JSON, the file in "content" and the kind in "kind", with a field of the service\'s own',
      command:
        '<%= config.bin %> documents upload passport.pdf --type passport --encoding json --file-field content --type-field kind --field file_name={{file_name}}',
    },
    {
      description: 'Upload the raw file, its kind and applicant in the query string',
      command: '<%= config.bin %> documents upload passport.pdf --encoding raw --query type=passport --query applicant_id=app_123',
    },
  ];

  static override mutating = true;

  static override args = {
    file: Args.string({ description: 'File to upload (asked for on a terminal when left out)', ignoreStdin: true }),
  };

  static override flags = {
    type: Flags.string({ description: `Kind of document (the sandbox: ${DOCUMENT_TYPES.join(', ')})` }),
    applicant: Flags.string({ description: 'Applicant the document supports (app_…)' }),
    ...uploadShapeFlags,
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(DocumentsUpload);
    const { client, connection } = await this.connect(flags);
    assertStated([['applicant_id', flags.applicant, STATED.applicantId]]);
    const shape = resolveUploadShape(
      {
        encoding: flags.encoding,
        fileField: flags['file-field'],
        typeField: flags['type-field'],
        applicantField: flags['applicant-field'],
        fields: flags.field,
        query: flags.query,
        headers: flags.header,
      },
      connection.settings,
      connection.profile,
    );
    // A raw upload carries the kind and the applicant only where its query parameters or headers hold them.
    const sends = { type: holdsPlaceholder(shape, 'type'), applicant_id: holdsPlaceholder(shape, 'applicant_id') };
    const unsent = (
      [
        ['--type', flags.type, 'type'],
        ['--applicant', flags.applicant, 'applicant_id'],
      ] as const
    ).find(([, value, name]) => value !== undefined && !sends[name]);
    if (unsent) {
      const [flag, , name] = unsent;
      throw new SvcError(
        'usage',
        'fields_with_raw_upload',
        `${flag} cannot be sent: a raw upload sends the file as the body, and no query parameter or header holds {{${name}}}`,
        `put it where the service takes it, e.g. --query ${name}={{${name}}} or --header x-${name.replace('_', '-')}={{${name}}}; or use --encoding multipart or json`,
      );
    }
    const file = await readDocumentFile(args.file ?? (await this.askForFile()));
    // The applicant the document supports, picked as reports create picks it.
    const applicantId =
      flags.applicant ??
      (this.io.canPrompt && sends.applicant_id
        ? await chooseApplicant(this.prompter, (line) => this.note(line), client, { baseUrl: connection.baseUrl.href, stateDir: this.paths.stateDir })
        : undefined);
    let type = flags.type;
    if (type === undefined && sends.type && this.io.canPrompt) type = await chooseOrType(this.prompter, 'Kind of document:', DOCUMENT_TYPES);
    for (const note of [leftOutWarning(type === undefined && sends.type ? ['type'] : []), ...uploadNotes(file)]) if (note) this.warning(note);
    const progress = await uploadProgress(this.io, file.filename, file.bytes.length);
    let document: DocumentAnswer | undefined;
    try {
      document = await uploadDocument(client, { file, type, applicantId, shape }, progress?.update);
    } finally {
      progress?.stop(document !== undefined);
    }
    this.log(renderDocument(document, this.timeView(flags.utc), this.io.stdout));
    return document;
  }

  private async askForFile(): Promise<string> {
    if (!this.io.canPrompt) throw new SvcError('usage', 'missing_file', 'name the file to upload', 'svc documents upload <file> --type <type>');
    // A shell expands ~ in an argument; a prompt's answer reaches svc as typed, so svc expands it as the shell would.
    const expanded = (answer: string) => answer.trim().replace(/^~(?=$|\/)/, this.io.env.HOME ?? '~');
    const answer = await this.prompter.input('File to upload:', {
      validate: (path) => isReadableFile(expanded(path)) || 'a file that exists and can be read, like ./passport.pdf',
    });
    return expanded(answer);
  }
}
