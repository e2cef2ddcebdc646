import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import { DOCUMENT_TYPES } from '../../api/enums.js';
import type { Document } from '../../api/types.js';
import { assertValid } from '../../api/validate.js';
import { readDocumentFile, uploadDocument } from '../../services/documents.js';
import { refuseMissingFlags } from '../../ui/ask.js';
import { renderDocument } from '../../ui/documents.js';
import { byteProgress } from '../../ui/progress.js';
import { inquirerPrompter } from '../../ui/prompter.js';

export default class DocumentsUpload extends ApiCommand {
  static override summary = 'Upload a supporting document: PDF, JPEG, PNG or UTF-8 text, at most 10 MiB';
  static override description = `The format is recognised by the file's content, never by its name, and checked before anything is sent. The document is then analysed asynchronously: \`svc documents get <id>\` shows the outcome.
--type is asked for on a terminal when left out; anywhere else it is required.`;

  static override examples = [
    '<%= config.bin %> documents upload passport.pdf --type passport --applicant app_123',
    '<%= config.bin %> documents upload statement.png --type bank_statement --json',
  ];

  static override mutating = true;

  static override args = {
    file: Args.string({ description: 'File to upload', required: true }),
  };

  static override flags = {
    type: Flags.option({ description: 'Kind of document', options: DOCUMENT_TYPES })(),
    applicant: Flags.string({ description: 'Applicant the document supports (app_…)' }),
  };

  public async run(): Promise<Document> {
    const { args, flags } = await this.parse(DocumentsUpload);
    const { session } = await this.connect(flags);
    refuseMissingFlags(flags.type === undefined ? ['type'] : [], 'svc documents upload passport.pdf --type passport');
    const type = flags.type ?? (await inquirerPrompter.select('Kind of document:', DOCUMENT_TYPES));
    const file = await readDocumentFile(args.file);
    // The file part was checked above; its name stands in for it so the schema checks the other fields.
    assertValid('DocumentUpload', { file: file.filename, type, ...(flags.applicant !== undefined && { applicant_id: flags.applicant }) });
    const progress = await byteProgress(`Uploading ${file.filename}`, file.bytes.length);
    let document: Document;
    try {
      document = await uploadDocument(session.client, { file, type, applicantId: flags.applicant }, progress?.update);
    } finally {
      progress?.stop();
    }
    this.log(renderDocument(document));
    return document;
  }
}
