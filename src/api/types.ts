import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

export type Report = Schemas['Report'];
export type ReportList = Schemas['ReportList'];
export type ReportStatus = Schemas['ReportStatus'];
export type ListReportsQuery = NonNullable<operations['listReports']['parameters']['query']>;
export type DeletionResult = Schemas['DeletionResult'];
