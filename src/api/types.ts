import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

export type Report = Schemas['Report'];
export type ReportCreate = Schemas['ReportCreate'];
export type ReportList = Schemas['ReportList'];
export type ReportStatus = Schemas['ReportStatus'];
export type ReportFailure = Schemas['ReportFailure'];
export type Criterion = Schemas['Criterion'];
export type RiskBand = Schemas['RiskBand'];
export type VisaType = Schemas['VisaType'];
export type DeletionResult = Schemas['DeletionResult'];
export type ListReportsQuery = NonNullable<operations['listReports']['parameters']['query']>;

export type Applicant = Schemas['Applicant'];
export type ApplicantInput = Schemas['ApplicantInput'];
export type TravelRecord = Schemas['TravelRecord'];

export type Document = Schemas['Document'];
export type DocumentType = Schemas['DocumentType'];
export type DocumentStatus = Schemas['DocumentStatus'];
export type DocumentRejection = Schemas['DocumentRejection'];
export type RedFlag = Schemas['RedFlag'];
export type PassportExtract = Schemas['PassportExtract'];

export type Key = Schemas['Key'];
export type KeyCreate = Schemas['KeyCreate'];
export type KeyWithSecret = Schemas['KeyWithSecret'];
export type KeyList = Schemas['KeyList'];
export type KeyRevocation = Schemas['KeyRevocation'];

export type EventType = Schemas['EventType'];
export type ErrorBody = Schemas['Error'];
