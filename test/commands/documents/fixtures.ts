/** Documents as the server of these tests answers them. */

export const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');

export const UPLOADED = {
  id: 'doc_7Hs2pQ1x',
  object: 'document',
  type: 'passport',
  status: 'processing',
  red_flags: [],
  applicant_id: 'app_4Jd92kQz',
  filename: 'passport.pdf',
  size_bytes: PDF.length,
  content_type: null,
  rejection: null,
  extracted: null,
  created_at: '2026-01-05T09:30:00Z',
};

export const ANALYSED = {
  ...UPLOADED,
  status: 'analysed',
  content_type: 'application/pdf',
  red_flags: [{ code: 'passport_expires_soon', message: 'The passport expires within six months of travel.' }],
  extracted: {
    document_number: 'X1234567',
    nationality: 'PT',
    surname: 'SILVA',
    given_names: 'ANA MARIA',
    date_of_birth: '1990-04-12',
    expiry_date: '2026-03-01',
    sex: 'F',
    check_digits_valid: true,
  },
};

export const REJECTED = {
  ...UPLOADED,
  id: 'doc_rejected1',
  status: 'rejected',
  rejection: { code: 'unsafe_content', message: 'The PDF carries JavaScript.' },
};
