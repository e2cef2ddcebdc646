import type { components } from './schema.js';

type Schemas = components['schemas'];

export type Report = Schemas['Report'];
export type ReportCreate = Schemas['ReportCreate'];
type ReportFailure = Schemas['ReportFailure'];
export type Criterion = Schemas['Criterion'];
export type RiskBand = Schemas['RiskBand'];
export type VisaType = Schemas['VisaType'];
export type DeletionResult = Schemas['DeletionResult'];

export type Applicant = Schemas['Applicant'];
export type ApplicantInput = Schemas['ApplicantInput'];
type TravelRecord = Schemas['TravelRecord'];

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

/** Any string where openapi.yaml assumes an enum of strings; an id as svc reads it, a string or a number. */
type Widened<K, V> = K extends 'id' ? string | number : V extends string ? string : V;

/**
 * A resource as an implementation answered it. Only what the specification states can be relied
 * on: any field openapi.yaml names may be missing or null, its enums may hold other values, and
 * fields it does not name are kept.
 */
export type Answered<T> = { [K in keyof T]?: Widened<K, T[K]> | null } & { [field: string]: unknown };

/** A resource read from an answer that held one (see `fetchedResource`): whatever else it lacks, it has an id. */
export type Identified<A> = A & { id: string | number };

export type ReportAnswer = Answered<Omit<Report, 'criteria' | 'error'>> & {
  criteria?: Array<Answered<Criterion>> | null;
  error?: Answered<ReportFailure> | null;
};
export type ApplicantAnswer = Answered<Omit<Applicant, 'travel_history'>> & { travel_history?: Array<Answered<TravelRecord>> | null };
export type DocumentAnswer = Answered<Omit<Document, 'red_flags' | 'rejection' | 'extracted'>> & {
  red_flags?: Array<Answered<RedFlag>> | null;
  rejection?: Answered<DocumentRejection> | null;
  extracted?: Answered<PassportExtract> | null;
};
