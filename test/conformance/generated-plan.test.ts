/**
 * How the generated checks share the requests a run allows them: in proportion, and where a share is
 * too small for a check to judge anything, among fewer checks, so that a small budget runs some.
 */
import { describe, expect, it } from 'vitest';
import { GENERATED_CHECKS, GeneratedRun, generatedRequests } from '../../src/conformance/generated/plan.js';

const allowances = (requests: number) =>
  Object.fromEntries(GENERATED_CHECKS.map((id) => [id, new GeneratedRun(1, requests, GENERATED_CHECKS, '').budget(id).allowance]));

describe("the generated checks' requests", () => {
  it('go to every check in proportion where the budget affords them all', () => {
    expect(allowances(300)).toEqual({
      'generated.inputs-valid': 30,
      'generated.inputs-invalid': 39,
      'generated.no-server-error': 18,
      'generated.credentials': 75,
      'generated.sequences': 138,
    });
  });

  it('go to fewer checks, each with enough to judge, where a share would be too small (a Pro plan with --fast, --generated-requests 20)', () => {
    expect(allowances(32)).toEqual({
      'generated.inputs-valid': 5,
      'generated.inputs-invalid': 7,
      'generated.no-server-error': 3,
      'generated.credentials': 14,
      'generated.sequences': 0,
    });
    expect(allowances(20)).toEqual({
      'generated.inputs-valid': 4,
      'generated.inputs-invalid': 0,
      'generated.no-server-error': 2,
      'generated.credentials': 12,
      'generated.sequences': 0,
    });
    expect(Object.values(allowances(1)).every((allowance) => allowance === 0)).toBe(true);
  });

  it("are what the window leaves with --fast, the kit's share of one window without, or --generated-requests", () => {
    const room = { remaining: 76, reserved: 30, window: 120 };
    expect(generatedRequests({ given: undefined, fast: true, room, stillToSend: 6 })).toBe(32);
    expect(generatedRequests({ given: undefined, fast: false, room, stillToSend: 6 })).toBe(90);
    expect(generatedRequests({ given: 20, fast: true, room, stillToSend: 6 })).toBe(20);
    expect(generatedRequests({ given: undefined, fast: true, room: { remaining: 999_999, reserved: 250_000, window: 1_000_000 }, stillToSend: 6 })).toBe(300);
  });
});
