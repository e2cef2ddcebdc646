/** Checks one stored document (workerData: dataDir, documentId) in a worker thread and posts the outcome. */
import { parentPort, workerData } from 'node:worker_threads';
import { CHECK_STARTED, checkDocument } from './document-check.js';
import { readDocumentContent } from './database.js';

parentPort!.postMessage(CHECK_STARTED);
const { dataDir, documentId } = workerData as { dataDir: string; documentId: string };
const content = readDocumentContent(dataDir, documentId);
if (content === undefined) throw new Error(`document ${documentId} has no content to check`);
parentPort!.postMessage(await checkDocument(content));
