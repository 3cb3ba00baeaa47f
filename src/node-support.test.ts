import { describe, expect, it } from 'vitest';
import { nodeVersionWarning } from './node-support.js';

describe('nodeVersionWarning', () => {
  it('says nothing on Node 24 LTS and 22; warns on 20 (past its end of life) and on untested versions', () => {
    expect(nodeVersionWarning('24.11.1')).toBeNull();
    expect(nodeVersionWarning('22.23.3')).toBeNull();
    expect(nodeVersionWarning('20.20.2')).toMatch(/^Node\.js 20\.20\.2 reached its end of life in April 2026 .*move to Node\.js 24 LTS/);
    expect(nodeVersionWarning('26.0.0')).toMatch(/^Node\.js 26\.0\.0 is not a version Punchlist is tested on: use Node\.js 24 LTS/);
    expect(nodeVersionWarning('18.20.0')).toMatch(/not a version Punchlist is tested on/);
    // One line: a log line, never a wrapped message.
    expect(nodeVersionWarning('20.10.0')).not.toContain('\n');
  });
});
