import type { DocumentType, VisaType } from '../../api/types.js';
import { documentLabel, listed } from '../wording.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

/** Words of a purpose that point to each visa type, matched as whole words, case-insensitively. */
const PURPOSE_KEYWORDS: Readonly<Record<VisaType, readonly string[]>> = {
  tourist: ['holiday', 'holidays', 'vacation', 'tourism', 'tourist', 'sightseeing', 'leisure', 'beach', 'museum', 'museums', 'tour'],
  business: [
    'business',
    'conference',
    'conferences',
    'meeting',
    'meetings',
    'client',
    'clients',
    'trade fair',
    'negotiation',
    'negotiations',
    'workshop',
    'supplier',
    'suppliers',
  ],
  student: [
    'study',
    'studies',
    'studying',
    'student',
    'university',
    'college',
    'school',
    'course',
    'degree',
    'semester',
    'exchange programme',
    'phd',
    'enrolled',
  ],
  work: ['job', 'work', 'working', 'employment', 'employer', 'employed', 'hired', 'salary', 'internship'],
  transit: ['transit', 'connecting flight', 'layover', 'stopover'],
  family: [
    'family',
    'relative',
    'relatives',
    'spouse',
    'wife',
    'husband',
    'parent',
    'parents',
    'mother',
    'father',
    'son',
    'daughter',
    'sister',
    'brother',
    'grandparents',
    'wedding',
    'children',
  ],
};

/** The document that usually backs the purpose of each visa type; a student's admission letter has no type of its own. */
const SUPPORTING_DOCUMENT: Readonly<Partial<Record<VisaType, DocumentType>>> = {
  tourist: 'travel_itinerary',
  transit: 'travel_itinerary',
  business: 'invitation_letter',
  family: 'invitation_letter',
  work: 'employment_letter',
};

const PURPOSE_SCORES = {
  consistent: 5,
  mixed: 30,
  /** Work mentioned for a visa that is not a work visa: the classic ground for refusal. */
  mentions_work: 60,
  vague: 45,
  contradicting: 85,
  missing_supporting_document: 15,
} as const;

const VISA_TYPES = Object.keys(PURPOSE_KEYWORDS) as VisaType[];

interface Judgement {
  score: number;
  fact: string;
  /** Without a final full stop: the missing supporting document may be added to it. */
  advice: string;
}

/** Whether the free-text purpose speaks of what the visa type is for, and whether a document backs it. */
export function assessPurposeConsistency({ purpose, visa_type, documents }: ReportAnalysisInput): Assessment {
  const judgement = judgePurpose(purpose, visa_type);
  const supporting = SUPPORTING_DOCUMENT[visa_type];
  if (supporting === undefined || documents.some((document) => document.type === supporting)) {
    return { score: judgement.score, detail: judgement.fact, advice: `${judgement.advice}.` };
  }
  return {
    score: judgement.score + PURPOSE_SCORES.missing_supporting_document,
    detail: `${judgement.fact}; no ${documentLabel(supporting)} uploaded`,
    advice: `${judgement.advice}, and upload ${article(documentLabel(supporting))}.`,
  };
}

function judgePurpose(purpose: string, visaType: VisaType): Judgement {
  const matches = new Map(VISA_TYPES.map((type) => [type, keywordsIn(purpose, type)]));
  const own = matches.get(visaType) ?? [];
  const others = VISA_TYPES.filter((type) => type !== visaType && (matches.get(type) ?? []).length > 0);
  const othersNamed = listed(others.map((type) => `${type} (${(matches.get(type) ?? []).join(', ')})`));

  if (own.length === 0 && others.length > 0) {
    return {
      score: PURPOSE_SCORES.contradicting,
      fact: `the purpose points to ${othersNamed}, not to a ${visaType} visa`,
      advice: `Apply for the visa type that fits the purpose, or restate it: it points to ${othersNamed} rather than a ${visaType} visa`,
    };
  }
  if (own.length === 0) {
    return {
      score: PURPOSE_SCORES.vague,
      fact: `the purpose names none of the usual reasons for a ${visaType} visa`,
      advice: `State the purpose concretely (what, where, with whom, when) so that it plainly fits a ${visaType} visa`,
    };
  }
  if (others.includes('work') && visaType !== 'work') {
    return {
      score: PURPOSE_SCORES.mentions_work,
      fact: `the purpose mentions work (${(matches.get('work') ?? []).join(', ')}), which a ${visaType} visa does not allow`,
      advice: `Remove any plan to work from the purpose, or apply for a work visa: a ${visaType} visa does not allow it`,
    };
  }
  if (others.length > 0) {
    return {
      score: PURPOSE_SCORES.mixed,
      fact: `the purpose fits a ${visaType} visa (${own.join(', ')}) but also mentions ${othersNamed}`,
      advice: `Keep the purpose to what a ${visaType} visa is for; mention other activities only as secondary`,
    };
  }
  return { score: PURPOSE_SCORES.consistent, fact: `the purpose fits a ${visaType} visa (${own.join(', ')})`, advice: 'Keep the purpose as stated' };
}

function keywordsIn(purpose: string, type: VisaType): string[] {
  return PURPOSE_KEYWORDS[type].filter((keyword) => new RegExp(`\\b${keyword.replaceAll(' ', '\\s+')}\\b`, 'i').test(purpose));
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
