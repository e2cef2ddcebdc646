import { describe, expect, it } from 'vitest';
import { RISK_BAND_LOWEST_SCORES, scoreBand } from '../../src/spec/enums.js';
import type { Applicant, DocumentType, RedFlag } from '../../src/api/types.js';
import {
  analyseReport,
  CRITERIA,
  CRITERION_WEIGHTS,
  MAX_RECOMMENDATIONS,
  STRONG_PROFILE_RECOMMENDATION,
  type ReportAnalysis,
  type ReportAnalysisInput,
  type ReportDocument,
} from '../../src/sandbox/analysis.js';
import { analyseDocument } from '../../src/sandbox/document-check.js';
import { buildMrz, type MrzFields } from '../../src/sandbox/mrz.js';
import { applicant, passportFields, passportText, TODAY } from './fixtures.js';

function analysedPassport(text: string | undefined, profile: Applicant = applicant()): ReportDocument {
  const { red_flags, extracted } = analyseDocument({ type: 'passport', text, applicant: profile, today: TODAY });
  return { type: 'passport', status: 'analysed', red_flags, extracted };
}

function passport(fields: Partial<MrzFields> = {}, profile: Applicant = applicant()): ReportDocument {
  return analysedPassport(passportText(fields), profile);
}

function document(type: DocumentType, red_flags: RedFlag[] = [], status: ReportDocument['status'] = 'analysed'): ReportDocument {
  return { type, status, red_flags, extracted: null };
}

/** A low-risk tourist trip of the fixture applicant (German) to the United States, every document in place. */
function input(overrides: Partial<ReportAnalysisInput> = {}): ReportAnalysisInput {
  return {
    applicant: applicant(),
    documents: [passport(), document('bank_statement'), document('travel_itinerary')],
    destination: 'US',
    visa_type: 'tourist',
    purpose: 'Holiday: sightseeing in New York and a museum tour',
    today: TODAY,
    ...overrides,
  };
}

function completed(analysis: ReportAnalysis) {
  if (analysis.outcome !== 'completed') throw new Error(`expected a completed analysis, got ${analysis.error.code}: ${analysis.error.message}`);
  return analysis;
}

function failure(analysis: ReportAnalysis) {
  if (analysis.outcome !== 'failed') throw new Error(`expected a failed analysis, got risk score ${analysis.risk_score}`);
  return analysis.error;
}

function criterion(analysis: ReportAnalysis, key: string) {
  const found = completed(analysis).criteria.find((entry) => entry.key === key);
  if (!found) throw new Error(`no criterion ${key}`);
  return found;
}

const scoreOf = (analysis: ReportAnalysis, key: string) => criterion(analysis, key).score;
const baseline = completed(analyseReport(input()));

const flag = (code: string): RedFlag => ({ code, message: `${code.replaceAll('_', ' ')} found` });

describe('rule set', () => {
  it('has weights that sum to exactly 1', () => {
    expect(CRITERIA.reduce((sum, rule) => sum + rule.weight, 0)).toBe(1);
    expect(Object.values(CRITERION_WEIGHTS).reduce((sum, weight) => sum + weight, 0)).toBe(1);
  });

  it('has seven distinct snake_case criteria with labels, each weighing a whole number of hundredths', () => {
    expect(new Set(CRITERIA.map((rule) => rule.key)).size).toBe(7);
    for (const rule of CRITERIA) {
      expect(rule.key).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(rule.label.length).toBeGreaterThan(0);
      expect(rule.weight).toBeGreaterThan(0);
      expect(Number.isInteger(Math.round(rule.weight * 100)) && Math.abs(rule.weight * 100 - Math.round(rule.weight * 100)) < 1e-9).toBe(true);
    }
  });

  it('uses the documented weights', () => {
    expect(CRITERION_WEIGHTS).toEqual({
      document_validity: 0.25,
      financial_means: 0.2,
      document_red_flags: 0.15,
      travel_history: 0.15,
      purpose_consistency: 0.1,
      immigration_history: 0.1,
      destination_policy: 0.05,
    });
  });
});

describe('analyseReport: a strong profile', () => {
  it('explains every criterion with the facts used, scores low and says the profile is strong', () => {
    expect(baseline).toEqual({
      outcome: 'completed',
      risk_score: 3,
      score_band: 'low',
      criteria: [
        {
          key: 'document_validity',
          label: 'Document validity',
          score: 0,
          weight: 0.25,
          detail: 'passport C01X00T47 is valid until 2031-10-31, its MRZ check digits match and it matches the profile',
        },
        {
          key: 'financial_means',
          label: 'Financial means',
          score: 5,
          weight: 0.2,
          detail:
            'funds of 32,000 EUR (savings 20,000 + 3 × income 4,000 EUR) cover 5.12× the 6,250 EUR expected for a tourist visa to US (high cost of living); a bank statement is uploaded',
        },
        { key: 'document_red_flags', label: 'Document red flags', score: 0, weight: 0.15, detail: 'no red flags on 3 documents' },
        {
          key: 'travel_history',
          label: 'Travel history',
          score: 5,
          weight: 0.15,
          detail: '3 trips abroad since 2017, 3 to strict-policy destinations (GB, FR and US), including US; no overstays',
        },
        {
          key: 'purpose_consistency',
          label: 'Purpose consistency',
          score: 5,
          weight: 0.1,
          detail: 'the purpose fits a tourist visa (holiday, sightseeing, museum, tour)',
        },
        { key: 'immigration_history', label: 'Immigration history', score: 0, weight: 0.1, detail: 'no previous visa refusals' },
        { key: 'destination_policy', label: 'Destination policy', score: 10, weight: 0.05, detail: 'DE nationals visit US for short stays without a visa' },
      ],
      recommendations: [STRONG_PROFILE_RECOMMENDATION],
    });
  });

  it('gives the same report for the same input, every time, without changing the input', () => {
    const given = input({ applicant: applicant({ previous_refusals: 1, savings: 1_234.5 }), purpose: 'conference and sightseeing' });
    const before = structuredClone(given);
    const first = analyseReport(given);
    for (let run = 0; run < 5; run++) expect(analyseReport(given)).toEqual(first);
    expect(analyseReport(structuredClone(given))).toEqual(first);
    expect(given).toEqual(before);
  });
});

describe('analyseReport: failures', () => {
  it('fails with document_unreadable when a document was rejected, naming it', () => {
    const documents = [passport(), document('bank_statement', [], 'rejected')];
    expect(failure(analyseReport(input({ documents })))).toEqual({
      code: 'document_unreadable',
      message: 'the bank statement could not be read (rejected at upload); upload a readable copy and create the report again',
    });
  });

  it('names every rejected kind of document once', () => {
    const documents = [document('passport', [], 'rejected'), document('bank_statement', [], 'rejected'), document('bank_statement', [], 'rejected')];
    expect(failure(analyseReport(input({ documents }))).message).toBe(
      'the passport and bank statement could not be read (rejected at upload); upload a readable copy and create the report again',
    );
  });

  it('fails with invalid_input for the applicant’s own country', () => {
    expect(failure(analyseReport(input({ destination: 'DE' })))).toEqual({
      code: 'invalid_input',
      message: 'an applicant needs no visa for their own country (DE)',
    });
  });

  it.each(['XX', 'ZZ', 'UK', 'EU'])('fails with unknown_destination for %s, which is no ISO 3166-1 country', (destination) => {
    expect(failure(analyseReport(input({ destination })))).toEqual({
      code: 'unknown_destination',
      message: `${destination} is not an ISO 3166-1 country code`,
    });
  });

  it.each(['us', 'USA', 'U1', ''])('fails with invalid_input for the destination %j, which is not two uppercase letters', (destination) => {
    expect(failure(analyseReport(input({ destination }))).code).toBe('invalid_input');
  });

  it('fails with documents_pending while a document is still processing', () => {
    expect(failure(analyseReport(input({ documents: [passport(), document('bank_statement', [], 'processing')] })))).toEqual({
      code: 'documents_pending',
      message: 'the bank statement is still being processed',
    });
    const twoPending = [document('passport', [], 'processing'), document('invitation_letter', [], 'processing')];
    expect(failure(analyseReport(input({ documents: twoPending }))).message).toBe('the passport and invitation letter are still being processed');
  });

  it('reports a rejected document before a pending one, and an invalid destination before either', () => {
    const documents = [document('passport', [], 'processing'), document('bank_statement', [], 'rejected')];
    expect(failure(analyseReport(input({ documents }))).code).toBe('document_unreadable');
    expect(failure(analyseReport(input({ documents, destination: 'XX' }))).code).toBe('unknown_destination');
  });
});

describe('analyseReport: each criterion moves the score the expected way', () => {
  function expectRiskier(changed: ReportAnalysisInput, key: string, score: number) {
    const analysis = completed(analyseReport(changed));
    expect(scoreOf(analysis, key)).toBe(score);
    expect(score).toBeGreaterThan(scoreOf(baseline, key));
    expect(analysis.risk_score).toBeGreaterThan(baseline.risk_score);
    return analysis;
  }

  describe('document_validity', () => {
    it('is high without a passport', () => {
      const analysis = expectRiskier(input({ documents: [document('bank_statement'), document('travel_itinerary')] }), 'document_validity', 80);
      expect(criterion(analysis, 'document_validity').detail).toBe('no passport uploaded, so identity and validity are unverified');
    });

    it('judges the profile’s passport expiry when no passport was uploaded', () => {
      const profile = applicant({ passport_expiry: '2025-12-31' });
      const analysis = expectRiskier(
        input({ applicant: profile, documents: [document('bank_statement'), document('travel_itinerary')] }),
        'document_validity',
        100,
      );
      expect(criterion(analysis, 'document_validity').detail).toBe(
        'no passport uploaded, so identity and validity are unverified; the passport expired on 2025-12-31',
      );
    });

    it('is raised when the passport’s MRZ could not be read', () => {
      expectRiskier(input({ documents: [analysedPassport(undefined), document('bank_statement'), document('travel_itinerary')] }), 'document_validity', 50);
    });

    it('is raised by a passport expiring within 6 months, and highest for an expired one', () => {
      const soon = applicant({ passport_expiry: '2026-08-31' });
      expectRiskier(
        input({ applicant: soon, documents: [passport({ expiry_date: '2026-08-31' }, soon), document('bank_statement'), document('travel_itinerary')] }),
        'document_validity',
        50,
      );
      const expired = applicant({ passport_expiry: '2026-02-28' });
      expectRiskier(
        input({ applicant: expired, documents: [passport({ expiry_date: '2026-02-28' }, expired), document('bank_statement'), document('travel_itinerary')] }),
        'document_validity',
        100,
      );
    });

    it('judges expiry on the day of the report, not of the upload', () => {
      const later = completed(analyseReport(input({ today: '2031-06-01' })));
      expect(scoreOf(later, 'document_validity')).toBe(50);
    });

    it('is raised by MRZ check digits that do not match', () => {
      const { line1, line2 } = buildMrz(passportFields());
      const broken = analysedPassport(`${line1}\n${line2.slice(0, 43)}${(Number(line2.charAt(43)) + 1) % 10}`);
      expectRiskier(input({ documents: [broken, document('bank_statement'), document('travel_itinerary')] }), 'document_validity', 40);
    });

    it('compares the passport with the profile as it is now, 30 points per differing field', () => {
      const renamed = expectRiskier(input({ applicant: applicant({ surname: 'Musterfrau' }) }), 'document_validity', 30);
      expect(criterion(renamed, 'document_validity').detail).toBe("the passport's name differs from the profile");
      const twoFields = expectRiskier(input({ applicant: applicant({ surname: 'Musterfrau', date_of_birth: '1984-08-12' }) }), 'document_validity', 60);
      expect(criterion(twoFields, 'document_validity').detail).toBe("the passport's name and date of birth differ from the profile");
    });

    it('counts the passport valid longest when there are several', () => {
      const old = passport({ expiry_date: '2026-02-01' }, applicant({ passport_expiry: '2026-02-01' }));
      expect(scoreOf(analyseReport(input({ documents: [old, ...input().documents] })), 'document_validity')).toBe(0);
    });
  });

  describe('document_red_flags', () => {
    it('counts severe flags 35 and moderate ones 20, at most 100', () => {
      expectRiskier(input({ documents: [...input().documents, document('other', [flag('document_empty')])] }), 'document_red_flags', 20);
      expectRiskier(input({ documents: [...input().documents, document('other', [flag('name_mismatch')])] }), 'document_red_flags', 35);
      const many = document('other', [flag('name_mismatch'), flag('nationality_mismatch'), flag('passport_number_mismatch')]);
      expectRiskier(input({ documents: [...input().documents, many, document('invitation_letter', [flag('document_empty')])] }), 'document_red_flags', 100);
    });

    it('lists each flag with its document', () => {
      const analysis = completed(analyseReport(input({ documents: [...input().documents, document('bank_statement', [flag('document_empty')])] })));
      expect(criterion(analysis, 'document_red_flags').detail).toBe('1 red flag on 4 documents: document_empty (bank statement)');
    });
  });

  describe('travel_history', () => {
    it('is raised without trips in the last 10 years', () => {
      const analysis = expectRiskier(
        input({ applicant: applicant({ travel_history: [{ country: 'US', year: 2016, overstayed: false }] }) }),
        'travel_history',
        60,
      );
      expect(criterion(analysis, 'travel_history').detail).toBe('no trips abroad since 2017');
    });

    it('counts a trip in the first of the 10 years', () => {
      const history = [{ country: 'TH', year: 2017, overstayed: false }];
      expect(scoreOf(analyseReport(input({ applicant: applicant({ travel_history: history }) })), 'travel_history')).toBe(50);
    });

    it('credits a trip to a strict-policy destination more than one elsewhere', () => {
      const strict = scoreOf(
        analyseReport(input({ applicant: applicant({ travel_history: [{ country: 'GB', year: 2024, overstayed: false }] }) })),
        'travel_history',
      );
      const moderate = scoreOf(
        analyseReport(input({ applicant: applicant({ travel_history: [{ country: 'TH', year: 2024, overstayed: false }] }) })),
        'travel_history',
      );
      expect([strict, moderate]).toEqual([40, 50]);
    });

    it('weighs an overstay heavily, at any time', () => {
      const once = [...applicant().travel_history, { country: 'GB', year: 2008, overstayed: true }];
      const analysis = expectRiskier(input({ applicant: applicant({ travel_history: once }) }), 'travel_history', 85);
      expect(criterion(analysis, 'travel_history').detail).toBe('overstayed once: GB (2008)');
      const twice = [...once, { country: 'US', year: 2019, overstayed: true }];
      expectRiskier(input({ applicant: applicant({ travel_history: twice }) }), 'travel_history', 100);
    });
  });

  describe('financial_means', () => {
    it('is raised by low funds', () => {
      const analysis = expectRiskier(input({ applicant: applicant({ savings: 0, monthly_income: 1_000 }) }), 'financial_means', 80);
      expect(criterion(analysis, 'financial_means').detail).toBe(
        'funds of 3,000 EUR (savings 0 + 3 × income 1,000 EUR) cover 0.48× the 6,250 EUR expected for a tourist visa to US (high cost of living); a bank statement is uploaded',
      );
    });

    it('is medium-high when means cannot be judged, and higher without a bank statement', () => {
      expectRiskier(input({ applicant: applicant({ savings: null, monthly_income: null }) }), 'financial_means', 65);
      expectRiskier(input({ applicant: applicant({ currency: null }) }), 'financial_means', 65);
      const unknownCurrency = expectRiskier(input({ applicant: applicant({ currency: 'XYZ' }) }), 'financial_means', 65);
      expect(criterion(unknownCurrency, 'financial_means').detail).toBe('no exchange rate for XYZ, so means cannot be judged; a bank statement is uploaded');
      const noStatement = input({ applicant: applicant({ savings: null, monthly_income: null }), documents: [passport(), document('travel_itinerary')] });
      expectRiskier(noStatement, 'financial_means', 75);
    });

    it('adds 10 when no bank statement backs the figures', () => {
      expectRiskier(input({ documents: [passport(), document('travel_itinerary')] }), 'financial_means', 15);
    });

    it('converts the currency: the same figures in yen are far less', () => {
      expectRiskier(input({ applicant: applicant({ currency: 'JPY' }) }), 'financial_means', 95);
    });

    it('expects more where living costs more', () => {
      const modest = applicant({ savings: 7_500, monthly_income: 0 });
      expect(scoreOf(analyseReport(input({ applicant: modest, destination: 'US' })), 'financial_means')).toBe(35); // 7,500 / 6,250
      expect(scoreOf(analyseReport(input({ applicant: modest, destination: 'BR' })), 'financial_means')).toBe(25); // 7,500 / 5,000
      expect(scoreOf(analyseReport(input({ applicant: modest, destination: 'VN' })), 'financial_means')).toBe(15); // 7,500 / 3,750
    });

    it('expects more for a student visa than for a tourist visa', () => {
      expect(scoreOf(analyseReport(input({ visa_type: 'student', purpose: 'a semester at university' })), 'financial_means')).toBe(25); // 32,000 / 18,750
    });
  });

  describe('purpose_consistency', () => {
    it.each([
      ['mixed with another visa type', 'Holiday and a business meeting', 30],
      ['vague', 'Visiting', 45],
      ['mentioning work on a tourist visa', 'Holiday, and a job interview', 60],
      ['contradicting the visa type', 'I have a job offer from an employer in Boston', 85],
    ])('is raised by a purpose %s', (_case, purpose, score) => {
      expectRiskier(input({ purpose }), 'purpose_consistency', score);
    });

    it('says which words point elsewhere', () => {
      const analysis = completed(analyseReport(input({ purpose: 'I have a job offer from an employer in Boston' })));
      expect(criterion(analysis, 'purpose_consistency').detail).toBe('the purpose points to work (job, employer), not to a tourist visa');
    });

    it('matches whole words only, case-insensitively', () => {
      expect(
        scoreOf(
          analyseReport(
            input({
              visa_type: 'business',
              purpose: 'WORKSHOP with suppliers',
              documents: [passport(), document('bank_statement'), document('invitation_letter')],
            }),
          ),
          'purpose_consistency',
        ),
      ).toBe(5);
    });

    it('adds 15 without the document that usually backs the purpose', () => {
      const analysis = expectRiskier(input({ documents: [passport(), document('bank_statement')] }), 'purpose_consistency', 20);
      expect(criterion(analysis, 'purpose_consistency').detail).toBe(
        'the purpose fits a tourist visa (holiday, sightseeing, museum, tour); no travel itinerary uploaded',
      );
    });
  });

  describe('immigration_history', () => {
    it.each([
      [1, 50],
      [2, 75],
      [3, 95],
      [9, 95],
    ])('is raised by %i previous refusals', (refusals, score) => {
      expectRiskier(input({ applicant: applicant({ previous_refusals: refusals }) }), 'immigration_history', score);
    });
  });

  describe('destination_policy', () => {
    it.each([
      ['DE', 'FR', 'tourist', 0],
      ['DE', 'US', 'tourist', 10],
      ['DE', 'TH', 'tourist', 30],
      ['IN', 'TH', 'tourist', 30],
      ['DE', 'US', 'student', 60],
      ['IN', 'US', 'tourist', 60],
      ['IN', 'FR', 'business', 60],
    ] as const)('scores a %s national going to %s on a %s visa %i', (nationality, destination, visa_type, score) => {
      expect(scoreOf(analyseReport(input({ applicant: applicant({ nationality }), destination, visa_type })), 'destination_policy')).toBe(score);
    });
  });
});

describe('analyseReport: risk score and band', () => {
  it.each([
    [0, 'low'],
    [24, 'low'],
    [25, 'medium'],
    [49, 'medium'],
    [50, 'high'],
    [74, 'high'],
    [75, 'very_high'],
    [100, 'very_high'],
  ] as const)('bands %i as %s', (score, band) => {
    expect(scoreBand(score)).toBe(band);
  });

  it('exports the thresholds it bands by', () => {
    expect(RISK_BAND_LOWEST_SCORES).toEqual({ low: 0, medium: 25, high: 50, very_high: 75 });
  });

  it('is the rounded weighted sum of the criteria, banded', () => {
    // document_validity 30 (name), financial_means 80, red flags 0, travel 60, purpose 5, refusals 50, destination 10:
    // 7.5 + 16 + 0 + 9 + 0.5 + 5 + 0.5 = 38.5, rounded half up to 39.
    const analysis = completed(
      analyseReport(input({ applicant: applicant({ surname: 'Musterfrau', savings: 0, monthly_income: 1_000, travel_history: [], previous_refusals: 1 }) })),
    );
    expect(analysis.criteria.map((entry) => entry.score)).toEqual([30, 80, 0, 60, 5, 50, 10]);
    expect(analysis.risk_score).toBe(39);
    expect(analysis.score_band).toBe('medium');
  });

  it('reaches very_high for a profile that fails on every count', () => {
    const analysis = completed(
      analyseReport({
        applicant: applicant({
          nationality: 'IN',
          savings: null,
          monthly_income: null,
          travel_history: [{ country: 'US', year: 2021, overstayed: true }],
          previous_refusals: 3,
        }),
        documents: [document('other', [flag('name_mismatch'), flag('passport_expired'), flag('nationality_mismatch')])],
        destination: 'US',
        visa_type: 'tourist',
        purpose: 'I have a job offer from an employer in Boston',
        today: TODAY,
      }),
    );
    // 80×.25 + 75×.2 + 100×.15 + 85×.15 + 100×.1 + 95×.1 + 60×.05 = 20 + 15 + 15 + 12.75 + 10 + 9.5 + 3 = 85.25
    expect(analysis.criteria.map((entry) => entry.score)).toEqual([80, 75, 100, 85, 100, 95, 60]);
    expect(analysis.risk_score).toBe(85);
    expect(analysis.score_band).toBe('very_high');
  });

  it('keeps every criterion score an integer from 0 to 100', () => {
    const extreme = completed(analyseReport(input({ applicant: applicant({ savings: 1e12, previous_refusals: 1_000 }) })));
    for (const entry of [...extreme.criteria, ...baseline.criteria]) {
      expect(Number.isInteger(entry.score)).toBe(true);
      expect(entry.score).toBeGreaterThanOrEqual(0);
      expect(entry.score).toBeLessThanOrEqual(100);
    }
  });
});

describe('analyseReport: recommendations', () => {
  it('gives one concrete line for the one weak criterion', () => {
    const soon = applicant({ passport_expiry: '2026-08-31' });
    const analysis = completed(
      analyseReport(
        input({ applicant: soon, documents: [passport({ expiry_date: '2026-08-31' }, soon), document('bank_statement'), document('travel_itinerary')] }),
      ),
    );
    expect(analysis.recommendations).toEqual(['Renew the passport: it expires on 2026-08-31, within 6 months of today.']);
  });

  it('advises on the weakest criteria, largest weighted risk first, at most 4', () => {
    const weak = applicant({ passport_expiry: '2026-01-31', currency: null, travel_history: [], previous_refusals: 2, nationality: 'IN' });
    const analysis = completed(
      analyseReport(
        input({
          applicant: weak,
          documents: [passport({ expiry_date: '2026-01-31', nationality: 'IN' }, weak), document('bank_statement'), document('travel_itinerary')],
          purpose: 'I have a job offer from an employer in Boston',
        }),
      ),
    );
    // weighted: document_validity 100×.25 = 25, financial_means 65×.2 = 13, travel_history 60×.15 = 9,
    // purpose_consistency 85×.1 = 8.5, immigration_history 75×.1 = 7.5, destination_policy 60×.05 = 3
    expect(analysis.recommendations).toHaveLength(MAX_RECOMMENDATIONS);
    expect(analysis.recommendations).toEqual([
      'Renew the passport: it expired on 2026-01-31.',
      'Add monthly income, savings and their currency to the profile, and upload a recent bank statement.',
      'Add evidence of ties to the home country (employment, property, family): no trips since 2017 show that earlier stays ended on time.',
      'Apply for the visa type that fits the purpose, or restate it: it points to work (job, employer) rather than a tourist visa.',
    ]);
  });

  it('puts the heavier criterion first when weighted risks are equal', () => {
    // travel_history 40 × .15 = 6 and purpose_consistency 60 × .1 = 6
    const analysis = completed(
      analyseReport(
        input({ applicant: applicant({ travel_history: [{ country: 'GB', year: 2024, overstayed: false }] }), purpose: 'Holiday, and a job interview' }),
      ),
    );
    expect([scoreOf(analysis, 'travel_history'), scoreOf(analysis, 'purpose_consistency')]).toEqual([40, 60]);
    expect(analysis.recommendations).toEqual([
      'Add evidence of ties to the home country (employment, property, family) and of the earlier trips (visas, entry stamps).',
      'Remove any plan to work from the purpose, or apply for a work visa: a tourist visa does not allow it.',
    ]);
  });

  it('advises on a criterion from a score of 40, not below', () => {
    const at40 = completed(analyseReport(input({ applicant: applicant({ travel_history: [{ country: 'GB', year: 2024, overstayed: false }] }) })));
    expect(at40.recommendations).toHaveLength(1);
    expect(at40.recommendations[0]).toMatch(/^Add evidence of ties/);
    const at35 = completed(analyseReport(input({ applicant: applicant({ savings: 7_500, monthly_income: 0 }) })));
    expect(scoreOf(at35, 'financial_means')).toBe(35);
    expect(at35.recommendations).toEqual([STRONG_PROFILE_RECOMMENDATION]);
  });

  it('names the missing funds', () => {
    const analysis = completed(analyseReport(input({ applicant: applicant({ savings: 0, monthly_income: 1_000 }) })));
    expect(analysis.recommendations).toEqual([
      "Show more funds: about 6,250 EUR is expected for a tourist visa to US, the profile shows 3,000 EUR; add savings, a sponsor's letter or a bank statement.",
    ]);
  });
});
