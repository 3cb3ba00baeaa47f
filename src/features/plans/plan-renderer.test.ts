import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf, tempFile } from '../../../test/helpers/plans.js';
import { createPlanRenderer } from './plan-renderer.js';

/** The nice value of each thread of a process (field 19 of /proc/PID/task/TID/stat), by thread id. */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The fields after the command name (which may hold spaces, in parentheses): state is field 3, nice field 19.
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread has ended meanwhile
    }
  });
}

/** This process's child processes, from /proc. */
function children(): number[] {
  return readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

/**
 * A PDF renders in a child process at the priority asked, every thread of it (V8's, libuv's pool, libvips'): on a
 * machine of two cores the server keeps its core while a drawing renders (docs/performance.md, "Plans"). Linux
 * only (a thread's priority, read from /proc).
 */
describe.skipIf(!existsSync('/proc/self/task'))('the plan renderer', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('renders in a child process whose every thread runs at the low priority it is given, and ends with its task', async () => {
    // Small pages: at nice 17 on a machine that other work keeps busy, the rendering gets little CPU.
    const path = tempFile(await makePdf({ pages: 3, size: 'A6' }), 'plan.pdf');
    const outDir = mkdtempSync(join(tmpdir(), 'punchlist-render-test-'));
    dirs.push(join(path, '..'), outDir);
    const before = new Set(children());
    const seen: Array<{ page: number; pids: number[]; nices: number[] }> = [];
    const sheets = await createPlanRenderer().render(
      { path, source: 'pdf', pages: [1, 2, 3], outDir },
      { timeoutMs: 280_000, memoryMb: 256, nice: 17 },
      (page) => {
        // While the process tiles the next page: libvips' and libuv's threads have started.
        const pids = children().filter((pid) => !before.has(pid));
        seen.push({ page, pids, nices: pids.flatMap(threadNices) });
      },
    );
    expect(sheets.map((sheet) => sheet.width)).toEqual([620, 620, 620]);
    // Pages 1 and 2 (the process may have ended by the time the last page's message is read).
    const rendering = seen.filter((s) => s.page < 3);
    expect(rendering.map((s) => s.pids.length)).toEqual([1, 1]);
    for (const { nices } of rendering) {
      expect(nices.length).toBeGreaterThan(4);
      expect(new Set(nices)).toEqual(new Set([17]));
    }
    expect(threadNices(process.pid)).not.toContain(17);
    // The process has ended with its task.
    await expect.poll(() => children().filter((pid) => !before.has(pid)), { timeout: 30_000 }).toEqual([]);
  }, 300_000);
});
