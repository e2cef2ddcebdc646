/** Runs one document's check (workerData.bytes) in a worker thread and posts its outcome. */
import { parentPort, workerData } from 'node:worker_threads';
import { checkDocument } from './document-check.js';

parentPort!.postMessage(await checkDocument((workerData as { bytes: Uint8Array }).bytes));
