// Generated from openapi.yaml by `npm run generate` (scripts/schemas.js); never edit by hand.

/** Each operation of openapi.yaml: its method, its path, the schema of each path parameter and of each success status. */
export const OPERATIONS = [
  {
    "id": "listReports",
    "method": "GET",
    "path": "/v1/reports",
    "parameters": {},
    "successes": {
      "200": "ReportList"
    }
  },
  {
    "id": "createReport",
    "method": "POST",
    "path": "/v1/reports",
    "parameters": {},
    "successes": {
      "201": "Report"
    }
  },
  {
    "id": "getReport",
    "method": "GET",
    "path": "/v1/reports/{id}",
    "parameters": {
      "id": "ReportId"
    },
    "successes": {
      "200": "Report"
    }
  },
  {
    "id": "deleteReport",
    "method": "DELETE",
    "path": "/v1/reports/{id}",
    "parameters": {
      "id": "ReportId"
    },
    "successes": {
      "200": "DeletionResult"
    }
  },
  {
    "id": "upsertApplicant",
    "method": "POST",
    "path": "/v1/applicants",
    "parameters": {},
    "successes": {
      "200": "Applicant",
      "201": "Applicant"
    }
  },
  {
    "id": "getApplicant",
    "method": "GET",
    "path": "/v1/applicants/{id}",
    "parameters": {
      "id": "ApplicantId"
    },
    "successes": {
      "200": "Applicant"
    }
  },
  {
    "id": "uploadDocument",
    "method": "POST",
    "path": "/v1/documents",
    "parameters": {},
    "successes": {
      "201": "Document"
    }
  },
  {
    "id": "getDocument",
    "method": "GET",
    "path": "/v1/documents/{id}",
    "parameters": {
      "id": "DocumentId"
    },
    "successes": {
      "200": "Document"
    }
  },
  {
    "id": "listKeys",
    "method": "GET",
    "path": "/v1/keys",
    "parameters": {},
    "successes": {
      "200": "KeyList"
    }
  },
  {
    "id": "createKey",
    "method": "POST",
    "path": "/v1/keys",
    "parameters": {},
    "successes": {
      "201": "KeyWithSecret"
    }
  },
  {
    "id": "getKey",
    "method": "GET",
    "path": "/v1/keys/{id}",
    "parameters": {
      "id": "KeyId"
    },
    "successes": {
      "200": "Key"
    }
  },
  {
    "id": "revokeKey",
    "method": "DELETE",
    "path": "/v1/keys/{id}",
    "parameters": {
      "id": "KeyId"
    },
    "successes": {
      "200": "KeyRevocation"
    }
  }
] as const;

export type OperationId = (typeof OPERATIONS)[number]['id'];

/** The error codes openapi.yaml gives each error status (components.responses). */
export const ERROR_CODES = {
  "400": [
    "invalid_json"
  ],
  "401": [
    "unauthorized",
    "invalid_key"
  ],
  "403": [
    "forbidden",
    "ip_not_allowed"
  ],
  "404": [
    "not_found"
  ],
  "413": [
    "file_too_large",
    "payload_too_large"
  ],
  "415": [
    "unsupported_media_type"
  ],
  "422": [
    "invalid_request"
  ],
  "429": [
    "rate_limited",
    "quota_exceeded"
  ],
  "500": [
    "internal_error"
  ]
} as const;

/** The schema of each event kind openapi.yaml lists (its webhooks). */
export const EVENT_SCHEMAS = {
  "report.created": "ReportCreatedEvent",
  "report.completed": "ReportCompletedEvent",
  "report.failed": "ReportFailedEvent",
  "document.parsed": "DocumentParsedEvent",
  "document.processed": "DocumentProcessedEvent",
  "document.rejected": "DocumentRejectedEvent"
} as const;
