import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Identified, DocumentAnswer } from '../../api/types.js';
import { getDocument } from '../../services/documents.js';
import { renderDocument } from '../../ui/documents.js';

/** What `--json` prints. */
export type JsonResult = Identified<DocumentAnswer>;

export default class DocumentsGet extends ApiCommand<JsonResult> {
  static override summary = 'Show a document: its status, red flags and the fields read from it';
  static override examples = ['<%= config.bin %> documents get doc_123', '<%= config.bin %> documents get doc_123 --json'];

  static override args = {
    id: Args.string({ description: 'Document id (doc_…)', required: true }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(DocumentsGet);
    assertStated([['id', args.id, STATED.documentId]]);
    const { client } = await this.connect(flags);
    const document = await getDocument(client, args.id);
    this.log(renderDocument(document, this.timeView(flags.utc), this.io.stdout));
    return document;
  }
}
