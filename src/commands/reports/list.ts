import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import type { PagingStop } from '../../api/paging.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { ReportAnswer } from '../../api/types.js';
import { maxPagesFlag } from '../../flags/max-pages.js';
import { type ListStart, listAllReports, listReportsFrom, type ReportPage } from '../../services/reports.js';
import { pagingStopWarning } from '../../ui/paging.js';
import { renderReportRows } from '../../ui/reports.js';
import { terminalText } from '../../ui/terminal-text.js';
import { shellWord } from '../../ui/shell-word.js';
import { helpText } from '../../cli/help-text.js';

/** The page after the one read: its URL, what in the answer gave it, and the arguments of `svc reports list` that read it. */
interface NextPageOffered {
  url: string;
  how: string;
  args: string[];
}

/**
 * `--json`: the reports read, and whether more follow (null when svc cannot tell); without --all,
 * `next_page` when more follow; with --all, `stopped` when paging stopped before the end.
 */
interface ReportListing {
  object: 'list';
  data: ReportAnswer[];
  has_more: boolean | null;
  next_page?: NextPageOffered;
  stopped?: PagingStop;
}

/** What `--json` prints. */
export type JsonResult = ReportListing;

export default class ReportsList extends ApiCommand<JsonResult> {
  static override summary = 'List the reports of the workspace';
  static override description = helpText`
    The reports are read wherever the answer holds them (a bare array, "data", or its one array of resources), and
    --all follows the next page the answer offers: a Link header, links.next, has_more, a next cursor or page
    numbers. When svc cannot tell whether more follow, it says so on stderr, and --json has "has_more": null.
    --all stops before the end at a page already read, a page that brings no report not seen before, and
    after --max-pages pages; it warns on stderr, and --json has "has_more": null and "stopped": {reason, message}.

    Query parameters are sent only when asked for: the specification shows none, and a service may refuse those it
    does not know.

    One page at a time: when more reports follow, svc says what to pass for the next page (--json: "next_page"
    with its "args"): --starting-after with the last id, --cursor with the answer's next cursor (sent as cursor=),
    or --page-url with the next page as the answer gave it (a next link, a page token, a page number), taken only
    on the base URL's origin, where the key goes. A page that shows the service ignored where it was to start (it
    holds the report of --starting-after, or its next page is itself) is refused (exit 9) rather than shown as the
    next one.
  `;

  static override examples = [
    '<%= config.bin %> reports list',
    '<%= config.bin %> reports list --status completed --applicant app_123',
    '<%= config.bin %> reports list --all --json',
    '<%= config.bin %> reports list --cursor MjA',
    "<%= config.bin %> reports list --page-url '/v1/reports?page_token=CiAKGjBp'",
  ];

  static override flags = {
    status: Flags.string({ description: 'Only reports in this status (sent as status=)' }),
    applicant: Flags.string({ description: 'Only reports of this applicant, app_… (sent as applicant_id=)' }),
    limit: Flags.integer({ description: 'Reports per page (sent as limit=; the service chooses when left out)', min: 1 }),
    'starting-after': Flags.string({
      description: 'Start after this report id, rep_… (sent as starting_after=, the cursor of services that page by the last id)',
      exclusive: ['cursor'],
    }),
    cursor: Flags.string({ description: "Start at this cursor, the answer's next cursor (sent as cursor=)" }),
    'page-url': Flags.string({
      description: 'Read the page at this URL of the list (a path or a query is enough): the next page an answer offered',
      exclusive: ['starting-after', 'cursor', 'status', 'applicant', 'limit'],
    }),
    all: Flags.boolean({ description: 'Follow the pages to the end' }),
    'max-pages': maxPagesFlag,
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ReportsList);
    assertStated([
      ['--starting-after', flags['starting-after'], STATED.reportId],
      ['--applicant', flags.applicant, STATED.applicantId],
    ]);
    const { client, connection } = await this.connect(flags);
    const start: ListStart =
      flags['page-url'] === undefined
        ? { query: { limit: flags.limit, status: flags.status, applicant_id: flags.applicant, starting_after: flags['starting-after'], cursor: flags.cursor } }
        : { pageUrl: flags['page-url'] };
    let listing: ReportListing;
    if (flags.all) {
      const { reports, stopped } = await listAllReports(client, connection.baseUrl, start, flags['max-pages']);
      listing = { object: 'list', data: reports, has_more: stopped ? null : false, ...(stopped && { stopped }) };
      this.show(reports, flags.utc);
      if (stopped) this.warning(pagingStopWarning(stopped, 'reports'));
    } else {
      const page = await listReportsFrom(client, connection.baseUrl, start);
      const next = page.next.kind === 'next' ? { url: page.next.url.href, how: page.next.how, args: nextPageArgs(page, 'pageUrl' in start) } : undefined;
      listing = {
        object: 'list',
        data: page.reports,
        has_more: page.next.kind === 'unknown' ? null : page.next.kind === 'next',
        ...(next && { next_page: next }),
      };
      this.show(page.reports, flags.utc);
      if (next)
        this.note(`More reports follow: the next page with ${terminalText(next.args.map(shellWord).join(' '))} (by ${next.how}), or all of them with --all.`);
      if (page.next.kind === 'unknown') this.note('svc cannot tell whether more reports follow: the answer shows no paging it recognises.');
    }
    return listing;
  }

  private show(reports: ReportAnswer[], utc: boolean): void {
    if (reports.length === 0) this.note('No reports.');
    else this.log(renderReportRows(reports, this.timeView(utc), this.io.stdout));
  }
}

/**
 * The arguments that read the page after `page`: the flag of its cursor where the next page differs
 * from this one by `starting_after` or `cursor` alone (the user's other flags still apply), else the
 * next page itself, whose URL holds its whole query.
 */
function nextPageArgs(page: ReportPage, fromPageUrl: boolean): string[] {
  if (page.next.kind !== 'next') return [];
  const next = page.next.url;
  if (!fromPageUrl && next.pathname === page.url.pathname) {
    const changed = [...new Set([...next.searchParams.keys(), ...page.url.searchParams.keys()])].filter(
      (name) => next.searchParams.getAll(name).join('&') !== page.url.searchParams.getAll(name).join('&'),
    );
    const flags: Record<string, string> = { starting_after: '--starting-after', cursor: '--cursor' };
    const only = changed.length === 1 ? changed[0]! : undefined;
    const value = only === undefined ? null : next.searchParams.get(only);
    if (only !== undefined && flags[only] && value !== null) return [flags[only], value];
  }
  return ['--page-url', `${next.pathname}${next.search}`];
}
