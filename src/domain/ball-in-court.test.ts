import { describe, expect, it } from 'vitest';
import { ballInCourt, type BallInCourtFacts } from './ball-in-court.js';
import { ITEM_STATUSES } from './values.js';

const facts = (over: Partial<BallInCourtFacts>): BallInCourtFacts => ({
  status: 'pending',
  verdict: null,
  answerPending: false,
  disputed: false,
  ...over,
});

describe('ballInCourt (docs/design.md §20)', () => {
  it('is the company’s move for every open status, the managers’ once done, nobody’s after a verdict', () => {
    const expected: Record<string, string> = { pending: 'company', in_progress: 'company', blocked: 'company', done: 'review' };
    for (const status of ITEM_STATUSES) expect(ballInCourt(facts({ status })), status).toBe(expected[status]);
    expect(ballInCourt(facts({ status: 'done', verdict: 'accepted' }))).toBe('none');
    expect(ballInCourt(facts({ status: 'done', verdict: 'rejected' }))).toBe('none');
  });

  it('is the managers’ move while an answer waits for review or a dispute is open, whatever the status', () => {
    for (const status of ITEM_STATUSES) {
      expect(ballInCourt(facts({ status, answerPending: true }))).toBe('review');
      expect(ballInCourt(facts({ status, disputed: true }))).toBe('review');
    }
  });

  it('is the company’s move again after a return to rework (in progress, verdict cleared)', () => {
    expect(ballInCourt(facts({ status: 'in_progress', verdict: null }))).toBe('company');
  });
});
