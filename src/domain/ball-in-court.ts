/**
 * Whose move an item waits on (docs/design.md §20), decided in this one place from the item's state, for the
 * item page, the project page, My items, reports and v1 alike:
 *
 * - `none`: the item is closed by its verdict (accepted, or rejected: nothing more is asked of anybody);
 * - `review`: the managers' move — the item is done and waits for a verdict, an answer waits for review, or the
 *   company disputes it (docs/decisions.md, "Companies");
 * - `company`: the responsible company's move (or its participants' when it has none) — pending, in progress,
 *   blocked, returned to rework.
 */
export const BALL_IN_COURT = ['company', 'review', 'none'] as const;
export type BallInCourt = (typeof BALL_IN_COURT)[number];

export interface BallInCourtFacts {
  status: string;
  verdict: string | null;
  /** Whether one of its answers waits for review (`pending`). */
  answerPending: boolean;
  /** Whether a dispute is open. */
  disputed: boolean;
}

export function ballInCourt(item: BallInCourtFacts): BallInCourt {
  if (item.verdict !== null) return 'none';
  if (item.disputed || item.answerPending || item.status === 'done') return 'review';
  return 'company';
}

/** How the web says it, beside the value. */
export function ballInCourtLabel(value: BallInCourt, company: { name: string } | null): string {
  if (value === 'none') return 'Nobody (closed)';
  if (value === 'review') return 'Managers (review)';
  return company ? company.name : 'Participants';
}
