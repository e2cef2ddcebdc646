import { describe, expect, it } from 'vitest';
import { listItems, nextPage } from '../../src/api/list-answer.js';

const URL_ = new URL('https://api.example.com/v1/reports?limit=2');
const report = (id: string) => ({ id, status: 'completed' });
const noHeaders = () => null;

describe('listItems', () => {
  it.each([
    ['a bare array', [report('rep_1')]],
    ['Stripe {object, data, has_more}', { object: 'list', data: [report('rep_1')], has_more: false }],
    [
      'JSON:API {data, included, links}',
      { data: [{ type: 'reports', id: 'rep_1', attributes: { status: 'completed' } }], included: [{ type: 'applicants', id: 'app_1' }], links: {} },
    ],
    ['another object holding the array', { reports: [report('rep_1')], total: 1 }],
    ['an array of resources beside another array', { warnings: ['slow'], items: [report('rep_1')] }],
    ['an array one level down', { result: { reports: [report('rep_1')] }, ok: true }],
  ])('finds the reports in %s', (_name, body) => {
    expect(listItems(body)).toEqual([report('rep_1')]);
  });

  it('finds an empty list', () => {
    expect(listItems({ data: [], has_more: false })).toEqual([]);
    expect(listItems({ reports: [] })).toEqual([]);
  });

  it.each([
    ['no array', { id: 'rep_1' }],
    ['several arrays of resources', { reports: [report('rep_1')], archived: [report('rep_2')] }],
    ['text', 'rep_1'],
  ])('cannot tell with %s', (_name, body) => {
    expect(listItems(body)).toBeUndefined();
  });
});

describe('nextPage', () => {
  it('follows a Link header rel="next" (RFC 8288), resolved against the request', () => {
    const next = nextPage(URL_, [report('rep_1')], (name) => (name === 'link' ? '</v1/reports?page=1>; rel="prev", </v1/reports?page=3>; rel="next"' : null));
    expect(next).toMatchObject({ kind: 'next', url: new URL('https://api.example.com/v1/reports?page=3') });
  });

  it('ends at a Link header without rel="next"', () => {
    expect(nextPage(URL_, [], (name) => (name === 'link' ? '</v1/reports?page=1>; rel="prev"' : null)).kind).toBe('end');
  });

  it('reads the body when the Link header carries no paging relation', () => {
    const next = nextPage(URL_, { data: [report('rep_1')], next_cursor: 'c2' }, (name) =>
      name === 'link' ? '<https://api.example.com/docs>; rel="describedby"' : null,
    );
    expect(next).toMatchObject({ kind: 'next', url: new URL('https://api.example.com/v1/reports?limit=2&cursor=c2') });
  });

  it.each([
    ['JSON:API links.next', { data: [], links: { next: '/v1/reports?page[after]=rep_2' } }, 'https://api.example.com/v1/reports?page[after]=rep_2'],
    ['HAL _links.next.href', { _embedded: {}, _links: { next: { href: 'https://api.example.com/v1/reports?p=2' } } }, 'https://api.example.com/v1/reports?p=2'],
    ['a next URL', { items: [], next: 'https://api.example.com/v1/reports?offset=2' }, 'https://api.example.com/v1/reports?offset=2'],
    [
      'has_more with the last id',
      { data: [report('rep_1'), report('rep_2')], has_more: true },
      'https://api.example.com/v1/reports?limit=2&starting_after=rep_2',
    ],
    ['a next cursor', { data: [report('rep_1')], next_cursor: 'c2' }, 'https://api.example.com/v1/reports?limit=2&cursor=c2'],
    ['a next cursor beside has_more', { data: [report('rep_1')], has_more: true, next_cursor: 'c2' }, 'https://api.example.com/v1/reports?limit=2&cursor=c2'],
    ['a page token', { reports: [report('rep_1')], nextPageToken: 't2' }, 'https://api.example.com/v1/reports?limit=2&pageToken=t2'],
    ['page numbers', { data: [report('rep_1')], meta: { current_page: 1, last_page: 3 } }, 'https://api.example.com/v1/reports?limit=2&page=2'],
  ])('follows %s', (_name, body, url) => {
    expect(nextPage(URL_, body, noHeaders)).toMatchObject({ kind: 'next', url: new URL(url) });
  });

  it.each([
    ['has_more false', { data: [], has_more: false }],
    ['links.next null', { data: [], links: { next: null } }],
    ['an empty cursor', { data: [], next_cursor: null }],
    ['the last page number', { data: [], page: 3, total_pages: 3 }],
    ['JSON:API links without next', { data: [], links: { self: '/v1/reports?page[after]=rep_2', first: '/v1/reports' } }],
    ['HAL _links without next', { _links: { self: { href: '/v1/reports?p=3' }, prev: { href: '/v1/reports?p=2' } } }],
  ])('ends at %s', (_name, body) => {
    expect(nextPage(URL_, body, noHeaders).kind).toBe('end');
  });

  it.each([
    ['a bare array', [report('rep_1')]],
    ['no paging field', { reports: [report('rep_1')] }],
    ['a next link to another origin, which would get the key', { data: [], links: { next: 'https://elsewhere.example.net/v1/reports?page=2' } }],
    ['a next value that is no link', { data: [], next: 'opaque-token' }],
    ['has_more without ids', { data: [{ name: 'x' }], has_more: true }],
  ])('cannot tell with %s', (_name, body) => {
    expect(nextPage(URL_, body, noHeaders)).toEqual({ kind: 'unknown' });
  });
});
