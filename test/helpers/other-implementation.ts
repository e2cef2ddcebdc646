/**
 * An implementation of the specification that svc did not write and that chose differently
 * wherever the specification says "not shown": each choice is a switch. A real HTTP server on
 * 127.0.0.1 (plain HTTP is allowed to loopback hosts) that keeps its applicants and reports in
 * memory and records every request it received.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startServer, type TestServer } from './server.js';

export interface Choices {
  /** Where GET /v1/reports puts the reports: a bare array, Stripe's `{object, data, has_more}`, JSON:API `{data, included, links}`, or `{results, count, next}`. */
  list: 'array' | 'stripe' | 'jsonapi' | 'results';
  /**
   * How the list pages, `pageSize` reports at a time: not at all, `has_more` and `starting_after`,
   * a Link header (`?page=`), `links.next` (`?page[after]=`), the `next` URL of `results`
   * (`?offset=`), `next_cursor` (`?cursor=`), page numbers in `meta` (`?page=`), or a next link
   * that always points at the first page (a paging loop).
   */
  paging: 'none' | 'has_more' | 'link' | 'links_next' | 'next_url' | 'cursor' | 'page_numbers' | 'loop';
  pageSize: number;
  /** Single resources as JSON:API `{data: {type, id, attributes}}` rather than bare. */
  wrapResources: boolean;
  createStatus: 200 | 201 | 202;
  deleteStatus: 200 | 202 | 204;
  /** The body of a deletion or revocation: none, a JSON object of its own, or text. */
  deleteBody: 'none' | 'json' | 'text';
  /** The answer to a read of a deleted report. */
  deletedStatus: 404 | 410;
  /** The UTC form of its timestamps. */
  utc: 'Z' | '+00:00';
  /** Its error bodies: `{error: {code, message}}`, flat `{code, message}`, RFC 9457 problem details (code in the `type` URI), JSON:API `{errors: […]}`. */
  errors: 'nested' | 'flat' | 'problem' | 'jsonapi';
  /** Its report status on creation and on each later read; the last one stays. */
  statuses: string[];
  /** Its visa types. */
  visaTypes: string[];
  /** The fields its applicants require. */
  applicantFields: string[];
  /**
   * How it takes POST /v1/documents: a multipart form whose file part is `upload` and kind field
   * `kind`; a JSON body `{kind, applicant_id, content (base64), file_name}`; the raw file as the
   * body, of a PDF or image media type; or the raw file of any other media type with its kind and
   * applicant in the query string (`?type=…&applicant_id=…`), refusing a form or JSON with 415.
   */
  upload: 'multipart' | 'json' | 'raw' | 'query';
  /** Query parameters of the list it takes without a word and ignores (a cursor of another convention). */
  ignoredParameters: string[];
}

const DEFAULT_CHOICES: Choices = {
  list: 'stripe',
  paging: 'has_more',
  pageSize: 2,
  wrapResources: false,
  createStatus: 201,
  deleteStatus: 200,
  deleteBody: 'json',
  deletedStatus: 404,
  utc: 'Z',
  errors: 'nested',
  statuses: ['pending', 'analysing', 'completed'],
  visaTypes: ['work_holiday', 'digital_nomad'],
  applicantFields: ['first_name', 'family_name', 'passport'],
  upload: 'multipart',
  ignoredParameters: [],
};

/** The query parameters each paging style takes; any other is refused, as a strict service may. */
const PAGING_PARAMETERS: Record<Choices['paging'], string[]> = {
  none: [],
  has_more: ['limit', 'starting_after'],
  link: ['page'],
  links_next: ['page[after]'],
  next_url: ['offset'],
  cursor: ['cursor'],
  page_numbers: ['page'],
  loop: [],
};
/** Filters it takes on the list, besides paging. */
const FILTERS = ['limit', 'status', 'applicant_id'];

type Json = Record<string, unknown>;

interface StoredReport {
  id: string;
  fields: Json;
  reads: number;
  deleted: boolean;
}

/** A document as it was uploaded: its kind, applicant and file as the implementation read them. */
interface ReceivedDocument {
  id: string;
  kind: string | undefined;
  applicantId: string | undefined;
  fileName: string | undefined;
  contentType: string | undefined;
  bytes: Buffer;
  /** Every field it received beside the file. */
  fields: Record<string, string>;
}

export interface OtherImplementation extends TestServer {
  choices: Choices;
  documents: ReceivedDocument[];
  /** Adds a report directly, as if made earlier; returns its id. */
  addReport(fields?: Json): string;
}

function parsed(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return {};
  }
}

function timestamp(choices: Choices, at: number): string {
  const text = new Date(at).toISOString().replace('.000Z', 'Z');
  return choices.utc === 'Z' ? text : text.replace(/Z$/, '+00:00');
}

export async function startOtherImplementation(overrides: Partial<Choices> = {}): Promise<OtherImplementation> {
  const choices: Choices = { ...DEFAULT_CHOICES, ...overrides };
  const applicants = new Map<string, Json>();
  const reports: StoredReport[] = [];
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(6, '0')}`;

  function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const type = body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8' };
    response.writeHead(status, { ...type, 'x-ratelimit-remaining': '77', ...headers }).end(text);
  }

  function fail(response: ServerResponse, status: number, code: string, message: string): void {
    switch (choices.errors) {
      case 'nested':
        return send(response, status, { error: { code, message } });
      case 'flat':
        return send(response, status, { code, message });
      case 'jsonapi':
        return send(response, status, { errors: [{ status: String(status), code, title: 'Request refused', detail: message }] });
      case 'problem': {
        const body = JSON.stringify({ type: `https://other.example/problems/${code}`, title: 'Request refused', status, detail: message });
        response.writeHead(status, { 'content-type': 'application/problem+json', 'x-ratelimit-remaining': '77' }).end(body);
      }
    }
  }

  function resource(type: string, fields: Json): Json {
    if (!choices.wrapResources) return fields;
    const { id, ...attributes } = fields;
    return { data: { type, id, attributes }, links: { self: `/v1/${type}/${String(id)}` } };
  }

  /** A report as this implementation shows it: the stated fields, its own extras, none of openapi.yaml's own. */
  function reportView(report: StoredReport): Json {
    const status = choices.statuses[Math.min(report.reads, choices.statuses.length - 1)]!;
    const view: Json = { ...report.fields, id: report.id, status, engine: 'other-2.4' };
    if (status === 'completed') {
      Object.assign(view, {
        risk_score: 412,
        score_band: 'moderate',
        criteria: [
          { key: 'funds', score: 30, weight: 0.75, evidence: ['bank statement'] },
          { key: 'history', score: 10, weight: 0.25 },
        ],
        recommendations: ['Bring proof of onward travel.'],
      });
    }
    return view;
  }

  function listBody(flat: Json[], next: { url: string | null; hasMore: boolean; cursor: string | null; page: number; pages: number }): unknown {
    switch (choices.list) {
      case 'array':
        return flat;
      case 'stripe':
        return {
          object: 'list',
          data: flat,
          has_more: next.hasMore,
          ...(choices.paging === 'cursor' && { next_cursor: next.cursor }),
          ...(choices.paging === 'page_numbers' && { meta: { current_page: next.page, last_page: next.pages } }),
        };
      case 'jsonapi':
        return {
          data: flat.map(({ id, ...attributes }) => ({ type: 'reports', id, attributes })),
          included: flat.map((report) => ({ type: 'applicants', id: report.applicant_id, attributes: {} })),
          links: { self: '/v1/reports', ...(['links_next', 'loop'].includes(choices.paging) && { next: next.url }) },
          ...(choices.paging === 'page_numbers' && { meta: { current_page: next.page, last_page: next.pages } }),
        };
      case 'results':
        return {
          results: flat,
          count: reports.filter((report) => !report.deleted).length,
          ...(['next_url', 'loop'].includes(choices.paging) && { next: next.url }),
          ...(choices.paging === 'cursor' && { next_cursor: next.cursor }),
        };
    }
  }

  function list(request: RecordedRequest, response: ServerResponse, base: string): void {
    const url = new URL(request.path, base);
    const known = [...FILTERS, ...PAGING_PARAMETERS[choices.paging], ...choices.ignoredParameters];
    const unknown = [...url.searchParams.keys()].find((name) => !known.includes(name));
    if (unknown) return fail(response, 400, 'unknown_parameter', `unknown query parameter ${unknown}`);
    for (const name of choices.ignoredParameters) url.searchParams.delete(name);
    const all = reports.filter((report) => !report.deleted);
    const size = Number(url.searchParams.get('limit') ?? choices.pageSize);
    let start = 0;
    if (url.searchParams.has('starting_after')) start = all.findIndex((report) => report.id === url.searchParams.get('starting_after')) + 1;
    if (url.searchParams.has('page[after]')) start = all.findIndex((report) => report.id === url.searchParams.get('page[after]')) + 1;
    if (url.searchParams.has('cursor')) start = Number(Buffer.from(url.searchParams.get('cursor')!, 'base64url').toString());
    if (url.searchParams.has('offset')) start = Number(url.searchParams.get('offset'));
    if (url.searchParams.has('page')) start = (Number(url.searchParams.get('page')) - 1) * size;
    const paged = choices.paging === 'none' ? all : all.slice(start, start + size);
    const end = choices.paging === 'none' || start + size >= all.length;
    const page = Math.floor(start / size) + 1;
    const pages = Math.max(1, Math.ceil(all.length / size));
    const last = paged.at(-1)?.id;
    const nextUrl = {
      none: null,
      has_more: null,
      link: `${base}/v1/reports?page=${page + 1}`,
      links_next: `/v1/reports?page[after]=${last}`,
      next_url: `${base}/v1/reports?offset=${start + size}`,
      cursor: null,
      page_numbers: null,
      loop: '/v1/reports',
    }[choices.paging];
    const body = listBody(paged.map(reportView), {
      url: end && choices.paging !== 'loop' ? null : nextUrl,
      hasMore: !end,
      cursor: end ? null : Buffer.from(String(start + size)).toString('base64url'),
      page,
      pages,
    });
    const headers: Record<string, string> = {};
    if (choices.paging === 'link')
      headers.link = end ? `<${base}/v1/reports?page=1>; rel="first"` : `<${nextUrl}>; rel="next", <${base}/v1/reports?page=1>; rel="first"`;
    send(response, 200, body, headers);
  }

  /** The document of an upload in its own shape, or the reason it refuses it. */
  async function receivedDocument(request: RecordedRequest): Promise<Omit<ReceivedDocument, 'id'> | string> {
    const contentType = request.headers['content-type'] ?? '';
    switch (choices.upload) {
      case 'multipart': {
        if (!contentType.startsWith('multipart/form-data')) return `uploads are multipart/form-data, not ${contentType}`;
        const form = await new Response(request.raw, { headers: { 'content-type': contentType } }).formData();
        const file = form.get('upload');
        if (!(file instanceof Blob)) return 'the form needs a file part named upload';
        const kind = form.get('kind');
        if (typeof kind !== 'string') return 'the form needs a kind';
        const fields = Object.fromEntries([...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
        const applicantId = form.get('applicant_id');
        return {
          kind,
          applicantId: typeof applicantId === 'string' ? applicantId : undefined,
          fileName: file.name,
          contentType: file.type,
          bytes: Buffer.from(await file.arrayBuffer()),
          fields,
        };
      }
      case 'json': {
        if (!contentType.startsWith('application/json')) return `uploads are application/json, not ${contentType}`;
        const body = parsed(request.body) as Record<string, string>;
        if (typeof body.content !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(body.content)) return 'content must hold the file in base64';
        if (typeof body.kind !== 'string') return 'the body needs a kind';
        const { content, ...fields } = body;
        return {
          kind: body.kind,
          applicantId: body.applicant_id,
          fileName: body.file_name,
          contentType: undefined,
          bytes: Buffer.from(content, 'base64'),
          fields,
        };
      }
      case 'raw':
        if (!/^(application\/pdf|image\/)/.test(contentType)) return `a raw upload is a PDF or an image, not ${contentType || 'without a media type'}`;
        return { kind: undefined, applicantId: undefined, fileName: undefined, contentType, bytes: request.raw, fields: {} };
      case 'query': {
        const query = new URL(request.path, 'http://query').searchParams;
        const kind = query.get('type');
        if (!kind) return 'the query string needs a type';
        const applicantId = query.get('applicant_id') ?? undefined;
        return { kind, applicantId, fileName: undefined, contentType, bytes: request.raw, fields: Object.fromEntries(query) };
      }
    }
  }

  async function upload(request: RecordedRequest, response: ServerResponse): Promise<void> {
    if (choices.upload === 'query' && /^(multipart\/|application\/json)/.test(request.headers['content-type'] ?? ''))
      return fail(response, 415, 'unsupported_media_type', 'send the file itself as the body, its type and applicant_id in the query string');
    const received = await receivedDocument(request);
    if (typeof received === 'string') return fail(response, 422, 'invalid_upload', received);
    const id = nextId('doc');
    implementation.documents.push({ id, ...received });
    send(
      response,
      choices.createStatus,
      resource('documents', { id, type: received.kind ?? 'unknown', status: 'received', red_flags: [], size: received.bytes.length }),
    );
  }

  function deletion(response: ServerResponse, id: string): void {
    const body = { json: { deletion: { target: id, state: choices.deleteStatus === 202 ? 'scheduled' : 'done' } }, text: 'Deleted.', none: undefined }[
      choices.deleteBody
    ];
    send(response, choices.deleteStatus, choices.deleteStatus === 204 ? undefined : body);
  }

  const server = await startServer((request, response) => {
    if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) return fail(response, 401, 'unauthorized', 'no key');
    const base = `http://${request.headers.host}`;
    const path = new URL(request.path, base).pathname;
    const body = parsed(request.body);
    const report = reports.find((stored) => path === `/v1/reports/${stored.id}`);

    if (request.method === 'POST' && path === '/v1/applicants') {
      const missing = choices.applicantFields.filter((name) => body[name] === undefined);
      if (missing.length) return fail(response, 422, 'missing_fields', `an applicant needs ${missing.join(', ')}`);
      const id = nextId('app');
      applicants.set(id, { id, ...body, created_at: timestamp(choices, Date.UTC(2026, 0, 5, 9, 30)) });
      return send(response, choices.createStatus, resource('applicants', applicants.get(id)!));
    }
    if (request.method === 'POST' && path === '/v1/reports') {
      if (!applicants.has(String(body.applicant_id))) return fail(response, 422, 'unknown_applicant', `no applicant ${String(body.applicant_id)}`);
      if (!choices.visaTypes.includes(String(body.visa_type)))
        return fail(response, 422, 'visa_type_not_offered', `visa type ${String(body.visa_type)} is not offered; use one of ${choices.visaTypes.join(', ')}`);
      const id = implementation.addReport({ applicant_id: body.applicant_id, destination: body.destination, visa_type: body.visa_type, purpose: body.purpose });
      return send(response, choices.createStatus, resource('reports', reportView(reports.find((stored) => stored.id === id)!)));
    }
    if (request.method === 'GET' && path === '/v1/reports') return list(request, response, base);
    if (request.method === 'POST' && path === '/v1/documents') return void upload(request, response);
    if (report?.deleted) return fail(response, choices.deletedStatus, 'report_gone', `report ${report.id} was deleted`);
    if (request.method === 'GET' && report) {
      report.reads++;
      return send(response, 200, resource('reports', reportView(report)));
    }
    if (request.method === 'DELETE' && report) {
      report.deleted = true;
      return deletion(response, report.id);
    }
    if (request.method === 'DELETE' && /^\/v1\/keys\/key_\w+$/.test(path)) return deletion(response, path.split('/').at(-1)!);
    fail(response, 404, 'no_route', `nothing at ${request.method} ${path}`);
  });

  const implementation: OtherImplementation = {
    ...server,
    choices,
    documents: [],
    addReport(fields = {}) {
      const id = nextId('rep');
      reports.push({
        id,
        fields: {
          applicant_id: 'app_000000',
          destination: 'NZ',
          visa_type: 'work_holiday',
          purpose: 'A year of work and travel',
          created_at: timestamp(choices, Date.UTC(2026, 0, 5, 9, 30) + counter * 1000),
          ...fields,
        },
        reads: 0,
        deleted: false,
      });
      return id;
    },
  };
  return implementation;
}
