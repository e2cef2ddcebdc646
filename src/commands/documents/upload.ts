import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import { DOCUMENT_TYPES } from '../../api/enums.js';
import { assertStated, STATED } from '../../api/stated.js';
import type { DocumentAnswer } from '../../api/types.js';
import { SvcError } from '../../errors.js';
import { isReadableFile, readDocumentFile, uploadDocument, uploadNotes } from '../../services/documents.js';
import { chooseOrType, leftOutWarning } from '../../ui/ask.js';
import { renderDocument } from '../../ui/documents.js';
import { uploadProgress } from '../../ui/progress.js';
import { canPrompt } from '../../ui/io.js';
import { timeView } from '../../ui/time.js';
import { chooseApplicant } from '../../applicant-choice.js';

/** What `--json` prints. */
export type JsonResult = DocumentAnswer;

export default class DocumentsUpload extends ApiCommand {
  static override summary = 'Upload a supporting document as a multipart form (type, applicant_id, file)';
  static override description = `The file is sent with the media type its content shows (PDF, JPEG, PNG, UTF-8 text; application/octet-stream otherwise), never guessed from its name. Its size and format are the service's to judge (the specification shows no limit): a warning says what the sandbox would refuse. The document is then analysed asynchronously: \`svc documents get <id>\` shows the outcome.
The file and --type are asked for on a terminal when left out; anywhere else a missing file is an error, and a missing type is left out of the form, with a warning.`;

  static override examples = [
    '<%= config.bin %> documents upload passport.pdf --type passport --applicant app_123',
    '<%= config.bin %> documents upload statement.png --type bank_statement --json',
  ];

  static override mutating = true;

  static override args = {
    file: Args.string({ description: 'File to upload (asked for on a terminal when left out)', ignoreStdin: true }),
  };

  static override flags = {
    type: Flags.string({ description: `Kind of document (the sandbox: ${DOCUMENT_TYPES.join(', ')})` }),
    applicant: Flags.string({ description: 'Applicant the document supports (app_…)' }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(DocumentsUpload);
    const { client, connection } = await this.connect(flags);
    assertStated([['applicant_id', flags.applicant, STATED.applicantId]]);
    const file = await readDocumentFile(args.file ?? (await this.askForFile()));
    // The applicant the document supports, picked as reports create picks it.
    const applicantId =
      flags.applicant ?? (canPrompt(this.io) ? await chooseApplicant(this.prompter, (line) => this.note(line), client, connection.baseUrl.href) : undefined);
    let type = flags.type;
    if (type === undefined && canPrompt(this.io)) type = await chooseOrType(this.prompter, 'Kind of document:', DOCUMENT_TYPES);
    for (const note of [leftOutWarning(type === undefined ? ['type'] : []), ...uploadNotes(file)]) if (note) this.warning(note);
    const progress = await uploadProgress(this.io, file.filename, file.bytes.length);
    let document: DocumentAnswer | undefined;
    try {
      document = await uploadDocument(client, { file, type, applicantId }, progress?.update);
    } finally {
      progress?.stop(document !== undefined);
    }
    this.log(renderDocument(document, timeView(flags.utc, this.io.stdout), this.io.stdout));
    return document;
  }

  private async askForFile(): Promise<string> {
    if (!canPrompt(this.io)) throw new SvcError('usage', 'missing_file', 'name the file to upload', 'svc documents upload <file> --type <type>');
    const answer = await this.prompter.input('File to upload:', {
      validate: (path) => isReadableFile(path.trim()) || 'a file that exists and can be read, like ./passport.pdf',
    });
    return answer.trim();
  }
}
